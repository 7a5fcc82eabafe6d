import {
  base64DecodedLength,
  isCountryCode,
  isCurrencyCode,
  isValidBic,
  isValidIban,
  logoProblem,
  MAX_LOGO_BYTES,
  normalizeIban,
} from './identifiers';
import { corruptRgbaPng, makePng, oversizedPng, pngChunk } from './png.fixtures';

const PNG_HEAD = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** A valid 2 x 2 PNG grown to `size` bytes with an ancillary chunk (which readers skip). */
const png = (size: number) => {
  const plain = makePng({ width: 2, height: 2 });
  const padding = pngChunk('tEXt', Buffer.alloc(size - plain.length - 12, 0x61));
  return Buffer.concat([plain.subarray(0, 33), padding, plain.subarray(33)]).toString('base64');
};

describe('standard codes', () => {
  it('knows the ISO 3166-1 alpha-2 list, not reserved or user-assigned codes', () => {
    for (const code of ['FR', 'NZ', 'US', 'JP', 'AX', 'SS', 'BQ']) expect(isCountryCode(code)).toBe(true);
    for (const code of ['UK', 'EU', 'XK', 'ZZ', 'fr', 'FRA', '']) expect(isCountryCode(code)).toBe(false);
  });

  it('knows ISO 4217 currencies in use', () => {
    for (const code of ['EUR', 'USD', 'JPY', 'NZD']) expect(isCurrencyCode(code)).toBe(true);
    for (const code of ['EURO', 'ABC', 'eur']) expect(isCurrencyCode(code)).toBe(false);
  });

  it('checks the IBAN mod-97 checksum', () => {
    expect(isValidIban(normalizeIban('GB82 WEST 1234 5698 7654 32'))).toBe(true);
    expect(isValidIban(normalizeIban('de89 3704 0044 0532 0130 00'))).toBe(true);
    expect(isValidIban(normalizeIban('GB82 WEST 1234 5698 7654 33'))).toBe(false);
    expect(isValidIban(normalizeIban('XX82 WEST 1234 5698 7654 32'))).toBe(false);
    expect(isValidIban('GB82')).toBe(false);
  });

  it('checks the BIC shape and its country', () => {
    expect(isValidBic('DEUTDEFF')).toBe(true);
    expect(isValidBic('DEUTDEFF500')).toBe(true);
    expect(isValidBic('DEUTXXFF')).toBe(false);
    expect(isValidBic('DEUTDEFF5')).toBe(false);
  });
});

describe('logo', () => {
  it('accepts a PNG up to 256 kB', () => {
    expect(logoProblem(png(100))).toBeUndefined();
    expect(logoProblem(png(MAX_LOGO_BYTES))).toBeUndefined();
    expect(base64DecodedLength(png(MAX_LOGO_BYTES))).toBe(MAX_LOGO_BYTES);
  });

  it('refuses a larger one, naming its size', () => {
    expect(logoProblem(png(MAX_LOGO_BYTES + 1))).toMatch(/at most 262144 bytes.*262145/);
  });

  it('refuses what is not a PNG or not base64', () => {
    expect(logoProblem(Buffer.from('GIF89a-not-a-png').toString('base64'))).toMatch(/PNG signature/);
    expect(logoProblem('not base64!')).toMatch(/base64/);
    expect(logoProblem(PNG_HEAD.subarray(0, 4).toString('base64'))).toMatch(/PNG signature/);
  });

  it('refuses a PNG the PDF renderer would choke on: corrupt image data, a header claiming 30000 x 30000 pixels', () => {
    expect(logoProblem(corruptRgbaPng.toString('base64'))).toMatch(/image data that does not decompress/);
    expect(logoProblem(oversizedPng.toString('base64'))).toMatch(/at most 4096 x 4096 pixels; this one says 30000 x 30000/);
  });
});
