import { deflateSync } from 'node:zlib';
import { AFRelationship, PDFDocument, PDFName, PDFRawStream } from '@cantoo/pdf-lib';
import { extractFacturXml, isPdf } from './facturx-extract';
import { child, parseXml, textAt, XmlRefused } from './xml';

const refusal = (fn: () => unknown): XmlRefused => {
  try {
    fn();
  } catch (err) {
    if (err instanceof XmlRefused) return err;
    throw err;
  }
  throw new Error('expected a refusal');
};

describe('parseXml', () => {
  test('reads elements, namespaces, attributes, text, CDATA and the five predefined entities', () => {
    const root = parseXml(
      '<?xml version="1.0" encoding="UTF-8"?>\n<!-- c --><Invoice xmlns="urn:i" xmlns:cbc="urn:cbc"><cbc:ID a=\'1\' b="x&amp;y">A&lt;B&#38;&#x43;</cbc:ID><cbc:Note><![CDATA[<not a tag>]]></cbc:Note><e/></Invoice>',
    );
    expect(root).toMatchObject({ local: 'Invoice', ns: 'urn:i' });
    expect(child(root, 'ID')).toMatchObject({ name: 'cbc:ID', ns: 'urn:cbc', attrs: { a: '1', b: 'x&y' }, text: 'A<B&C' });
    expect(textAt(root, 'Note')).toBe('<not a tag>');
    expect(child(root, 'e')).toMatchObject({ ns: 'urn:i', children: [], text: '' });
  });

  test('accepts bytes with a UTF-8 BOM and ISO-8859-1 when declared', () => {
    expect(textAt(parseXml(Buffer.from('\uFEFF<a><b>é</b></a>')), 'b')).toBe('é');
    expect(textAt(parseXml(Buffer.from('<?xml version="1.0" encoding="ISO-8859-1"?><a><b>\xe9</b></a>', 'latin1')), 'b')).toBe('é');
  });

  test('XXE: a DOCTYPE with an external entity is refused before anything is resolved', () => {
    const xxe = '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>';
    expect(refusal(() => parseXml(xxe)).reason).toBe('doctype');
    expect(refusal(() => parseXml('<!DOCTYPE r SYSTEM "http://example.com/r.dtd"><r/>')).reason).toBe('doctype');
  });

  test('billion laughs is refused at once, and an undeclared entity is refused too', () => {
    const defs = Array.from({ length: 10 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i};`.repeat(10)}">`).join('');
    const bomb = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol0 "lol">${defs}]><lolz>&lol10;</lolz>`;
    const started = process.hrtime.bigint();
    expect(refusal(() => parseXml(bomb)).reason).toBe('doctype');
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(50);
    expect(refusal(() => parseXml('<r>&lol10;</r>')).reason).toBe('entity');
  });

  test('50 MB is refused by its size without being read', () => {
    const big = Buffer.alloc(50 * 1024 * 1024, 0x61);
    const started = process.hrtime.bigint();
    expect(refusal(() => parseXml(big)).reason).toBe('too_large');
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(50);
  });

  test('deep nesting is refused at the depth cap; nesting to the cap is read', () => {
    const nest = (depth: number) => '<a>'.repeat(depth) + '</a>'.repeat(depth);
    expect(refusal(() => parseXml(nest(100_000))).reason).toBe('too_deep');
    expect(parseXml(nest(64)).local).toBe('a');
    expect(refusal(() => parseXml(nest(65))).reason).toBe('too_deep');
  });

  test('too many elements and too much time are refused', () => {
    expect(refusal(() => parseXml(`<a>${'<b/>'.repeat(2_000)}</a>`, { maxElements: 1_000 })).reason).toBe('too_many_elements');
    expect(refusal(() => parseXml(`<a>${'<b/>'.repeat(200_000)}</a>`, { maxMillis: 0 })).reason).toBe('too_slow');
  });

  test.each([
    ['<a><b></a>', /closes/],
    ['<a>', /not closed/],
    ['<a/><b/>', /second root/],
    ['<a x=1/>', /unquoted/],
    ['<a x="1" x="2"/>', /repeated/],
    ['<p:a/>', /not declared/],
    ['<a>&#0;</a>', /character reference/],
    ['<a>&amp</a>', /unterminated reference/],
    ['text', /outside the root/],
    ['', /No root/],
  ])('malformed %j is refused', (xml, message) => {
    const err = refusal(() => parseXml(xml));
    expect(err.reason).toBe('malformed');
    expect(err.message).toMatch(message);
  });

  test('UTF-16 and undeclared encodings are refused', () => {
    expect(refusal(() => parseXml(Buffer.from([0xff, 0xfe, 0x3c, 0x00]))).reason).toBe('encoding');
    expect(refusal(() => parseXml(Buffer.from('<?xml version="1.0" encoding="Shift_JIS"?><a/>'))).reason).toBe('encoding');
    expect(refusal(() => parseXml(Buffer.from([0x3c, 0x61, 0x3e, 0xc3, 0x28, 0x3c, 0x2f, 0x61, 0x3e]))).reason).toBe('encoding');
  });
});

async function pdfWith(name: string, content: Buffer): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.addPage();
  await doc.attach(content, name, { mimeType: 'text/xml', afRelationship: AFRelationship.Alternative });
  return doc.save();
}

describe('extractFacturXml', () => {
  test('finds factur-x.xml (and zugferd-invoice.xml) in a PDF, byte for byte', async () => {
    const xml = Buffer.from('<rsm:CrossIndustryInvoice xmlns:rsm="urn:x"/>');
    const pdf = await pdfWith('factur-x.xml', xml);
    expect(isPdf(pdf)).toBe(true);
    expect(await extractFacturXml(pdf)).toEqual({ name: 'factur-x.xml', xml });
    expect((await extractFacturXml(await pdfWith('ZUGFeRD-invoice.xml', xml))).xml).toEqual(xml);
  });

  test('a PDF without an invoice attachment, or not a PDF, is refused', async () => {
    await expect(extractFacturXml(await pdfWith('other.xml', Buffer.from('<a/>')))).rejects.toThrow(/no factur-x.xml/);
    await expect(extractFacturXml(Buffer.from('%PDF-1.7 nonsense'))).rejects.toBeInstanceOf(XmlRefused);
  });

  test('an attachment that inflates past the cap is refused, not inflated', async () => {
    const doc = await PDFDocument.create();
    doc.addPage();
    const bomb = deflateSync(Buffer.alloc(30 * 1024 * 1024, 0x20));
    await doc.attach(Buffer.alloc(0), 'factur-x.xml', { mimeType: 'text/xml' });
    const pdf = Buffer.from(await doc.save({ useObjectStreams: false }));
    // The empty attachment's stream is swapped for the bomb: a PDF whose attachment holds 30 MB in 30 KB.
    const loaded = await PDFDocument.load(pdf);
    for (const [, obj] of loaded.context.enumerateIndirectObjects()) {
      if (obj instanceof PDFRawStream && obj.dict.get(PDFName.of('Type')) === PDFName.of('EmbeddedFile')) {
        obj.dict.set(PDFName.of('Filter'), PDFName.of('FlateDecode'));
        obj.updateContents(bomb);
      }
    }
    const bombed = await loaded.save();
    await expect(extractFacturXml(bombed, { maxXmlBytes: 1024 * 1024 })).rejects.toMatchObject({ reason: 'too_large' });
  });
});
