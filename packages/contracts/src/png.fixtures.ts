import { crc32, deflateSync } from 'node:zlib';

/**
 * PNGs made to measure for tests (tests/support/png.ts re-exports them for the others): well-formed chunks (with their CRCs) around whatever header and
 * image data a test needs, valid or not.
 */
export function pngChunk(type: string, data: Uint8Array = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

export interface PngSpec {
  width: number;
  height: number;
  /** 0 grey, 2 RGB, 3 indexed, 4 grey + alpha, 6 RGBA. */
  colourType?: number;
  depth?: number;
  interlaced?: boolean;
  /** The IDAT payload as it is (compressed); default: the right number of zero scanlines, deflated. */
  idat?: Uint8Array;
  /** Extra chunks before IDAT (PLTE, tRNS, padding). */
  before?: Buffer[];
}

const channels: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

export function makePng({ width, height, colourType = 6, depth = 8, interlaced = false, idat, before = [] }: PngSpec): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = depth;
  ihdr[9] = colourType;
  ihdr[12] = interlaced ? 1 : 0;
  const rowBytes = Math.ceil((width * depth * (channels[colourType] ?? 1)) / 8);
  const data = idat ?? deflateSync(Buffer.alloc(height * (1 + rowBytes)));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    ...before,
    pngChunk('IDAT', data),
    pngChunk('IEND'),
  ]);
}

/** An RGBA PNG whose IDAT is not zlib data: png-js throws on it from a zlib callback. */
export const corruptRgbaPng = makePng({ width: 2, height: 2, colourType: 6, idat: Buffer.from('this is not zlib data at all') });

/** A PNG whose header claims 30000 x 30000 pixels (its few bytes of data would never fill them). */
export const oversizedPng = makePng({ width: 30000, height: 30000, colourType: 6, idat: deflateSync(Buffer.alloc(16)) });
