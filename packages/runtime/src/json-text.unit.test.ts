import { JsonText, plainBody, serializeBody, serializeBodyBytes } from './json-text';

describe('a reply body with fields already serialized', () => {
  const records = [
    { id: 2, name: 'Quote " and \\ back', note: null },
    { id: 1, name: 'Ünïcode ✓', note: 'line\nbreak' },
  ];

  it('splices JsonText fields in as they are: the very text JSON.stringify writes for the parsed body', () => {
    const body = { message: 'ok', records: new JsonText(JSON.stringify(records)), pagination: { page: 1, total: 2 } };
    const plain = { message: 'ok', records, pagination: { page: 1, total: 2 } };
    expect(serializeBody(body)).toBe(JSON.stringify(plain));
  });

  it('does not re-read the text: what PostgreSQL wrote goes out byte for byte', () => {
    const spaced = '[{"id" : 1}, \n {"id" : 2}]';
    expect(serializeBody({ records: new JsonText(spaced), n: 2 })).toBe(`{"records":${spaced},"n":2}`);
  });

  it('keeps key order, escapes keys, and leaves out what JSON.stringify leaves out', () => {
    const body = { first: new JsonText('[]'), 'quo"te': 1, gone: undefined, fn: () => 1, last: 'x' };
    expect(serializeBody(body)).toBe('{"first":[],"quo\\"te":1,"last":"x"}');
    expect(serializeBody({ only: new JsonText('{}') })).toBe('{"only":{}}');
  });

  it('is JSON.stringify itself for a body without JsonText', () => {
    const body = { a: 1, b: [1, 2], c: { d: null } };
    expect(serializeBody(body)).toBe(JSON.stringify(body));
    expect(plainBody(body)).toBe(body);
  });

  it('writes the same text as UTF-8 bytes, multi-byte characters inside and outside the JsonText included', () => {
    const bodies = [
      { message: 'Ünïcode ✓ ok', records: new JsonText(JSON.stringify(records)), total: 2 },
      { records: new JsonText('[]') },
      { message: 'no JsonText: 😀' },
    ];
    for (const body of bodies) {
      const bytes = serializeBodyBytes(body);
      expect(bytes.equals(Buffer.from(serializeBody(body), 'utf8'))).toBe(true);
      expect(JSON.parse(bytes.toString('utf8'))).toEqual(plainBody(body));
    }
  });

  it('reads as its value wherever the body is serialized by JSON.stringify (a recorded reply, a log)', () => {
    const body = { records: new JsonText(JSON.stringify(records)) };
    expect(JSON.stringify(body)).toBe(JSON.stringify({ records }));
    expect(plainBody(body)).toEqual({ records });
  });
});
