import { inflateSync } from 'node:zlib';

/**
 * A PNG checked the whole way through before anything draws it. PDFKit (through png-js) decodes
 * RGBA, indexed-with-transparency and interlaced PNGs in a zlib callback that throws on bad data,
 * which no caller can catch: the process dies. It also trusts IHDR's size for its allocations. So a
 * PNG is accepted only when its chunks are whole, its size is bounded, its colour type and bit depth
 * are ones PDFKit draws, and its image data inflates to exactly the scanlines IHDR announces, each
 * with a known filter.
 */

/** The widest and tallest image accepted, in pixels: far beyond a logo, far below an allocation that hurts. */
export const MAX_PNG_SIDE = 4096;

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Bit depths the PNG specification allows per colour type, and the channels of each. */
const colourTypes: Record<number, { depths: number[]; channels: number; name: string }> = {
  0: { depths: [1, 2, 4, 8, 16], channels: 1, name: 'greyscale' },
  2: { depths: [8, 16], channels: 3, name: 'RGB' },
  3: { depths: [1, 2, 4, 8], channels: 1, name: 'indexed' },
  4: { depths: [8, 16], channels: 2, name: 'greyscale with alpha' },
  6: { depths: [8, 16], channels: 4, name: 'RGBA' },
};

/** Adam7 passes: first column and row, then the steps between them. */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

interface Header {
  width: number;
  height: number;
  depth: number;
  colourType: number;
  interlaced: boolean;
}

/** Each pass's size in scanlines and bytes per scanline (without the filter byte). */
function passes(h: Header): { rows: number; rowBytes: number }[] {
  const bitsPerPixel = h.depth * colourTypes[h.colourType]!.channels;
  const rowBytes = (width: number) => Math.ceil((width * bitsPerPixel) / 8);
  if (!h.interlaced) return [{ rows: h.height, rowBytes: rowBytes(h.width) }];
  return ADAM7.map(([x0, y0, dx, dy]) => ({ cols: Math.ceil((h.width - x0) / dx), rows: Math.ceil((h.height - y0) / dy) }))
    .filter((p) => p.cols > 0 && p.rows > 0)
    .map((p) => ({ rows: p.rows, rowBytes: rowBytes(p.cols) }));
}

function headerProblem(data: Uint8Array): string | Header {
  if (data.length !== 13) return 'its IHDR chunk is not 13 bytes long';
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const h: Header = {
    width: view.getUint32(0),
    height: view.getUint32(4),
    depth: data[8]!,
    colourType: data[9]!,
    interlaced: data[12] === 1,
  };
  if (h.width === 0 || h.height === 0) return 'its IHDR says it has no pixels';
  if (h.width > MAX_PNG_SIDE || h.height > MAX_PNG_SIDE)
    return `must be at most ${MAX_PNG_SIDE} x ${MAX_PNG_SIDE} pixels; this one says ${h.width} x ${h.height}`;
  const type = colourTypes[h.colourType];
  if (!type) return `has an unknown colour type ${h.colourType}`;
  if (!type.depths.includes(h.depth)) return `has a bit depth of ${h.depth}, which ${type.name} PNGs cannot have`;
  if (data[10] !== 0 || data[11] !== 0 || data[12]! > 1) return 'has an unknown compression, filter or interlace method';
  return h;
}

/** Why these bytes are not a PNG PDFKit can safely draw, or undefined when they are. */
export function pngProblem(bytes: Uint8Array): string | undefined {
  if (bytes.length < SIGNATURE.length || SIGNATURE.some((byte, i) => bytes[i] !== byte))
    return 'must be a PNG image (it does not start with the PNG signature)';
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let header: Header | undefined;
  let palette = false;
  let transparency = false;
  let ended = false;
  const imageData: Uint8Array[] = [];
  for (let pos = SIGNATURE.length; !ended;) {
    if (pos + 12 > bytes.length) return 'is cut short (it ends before its IEND chunk)';
    const length = view.getUint32(pos);
    const type = String.fromCharCode(...bytes.subarray(pos + 4, pos + 8));
    if (pos + 12 + length > bytes.length) return `is cut short (its ${type} chunk runs past the end)`;
    const data = bytes.subarray(pos + 8, pos + 8 + length);
    if (!header && type !== 'IHDR') return 'is malformed (its first chunk is not IHDR)';
    switch (type) {
      case 'IHDR': {
        if (header) return 'is malformed (it has two IHDR chunks)';
        const parsed = headerProblem(data);
        if (typeof parsed === 'string') return parsed;
        header = parsed;
        break;
      }
      case 'PLTE':
        if (length === 0 || length % 3 !== 0 || length > 256 * 3) return 'has a malformed palette (PLTE)';
        palette = true;
        break;
      case 'tRNS':
        transparency = true;
        break;
      case 'IDAT':
        imageData.push(data);
        break;
      case 'IEND':
        ended = true;
        break;
    }
    pos += 12 + length;
  }
  const h = header!;
  if (h.colourType === 3 && !palette) return 'is an indexed PNG without a palette (PLTE)';
  // png-js unpacks pixels byte by byte when it decodes them (interlaced, or indexed with transparency).
  if (h.depth < 8 && (h.interlaced || (h.colourType === 3 && transparency))) {
    return `has ${h.depth}-bit pixels with ${h.interlaced ? 'interlacing' : 'transparency'}, which the PDF renderer cannot draw: save it as an 8-bit PNG`;
  }
  if (imageData.length === 0) return 'has no image data (IDAT)';
  const layout = passes(h);
  const expected = layout.reduce((sum, p) => sum + p.rows * (1 + p.rowBytes), 0);
  let pixels: Buffer;
  try {
    // One byte more than expected is enough to tell "too long" without inflating whatever it claims.
    pixels = inflateSync(Buffer.concat(imageData), { maxOutputLength: expected + 1 });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE')
      return `has more image data than its ${h.width} x ${h.height} pixels need`;
    return `has image data that does not decompress (${(err as Error).message})`;
  }
  if (pixels.length !== expected) return `has ${pixels.length} bytes of image data where its size needs ${expected}`;
  let at = 0;
  for (const p of layout) {
    for (let row = 0; row < p.rows; row++, at += 1 + p.rowBytes) {
      if (pixels[at]! > 4) return `has an unknown scanline filter ${pixels[at]}`;
    }
  }
  return undefined;
}
