import { deflateSync } from 'node:zlib';
import { corruptRgbaPng, makePng, oversizedPng, pngChunk } from './png.fixtures';
import { pngProblem } from './png';

describe('pngProblem', () => {
  test('accepts the PNGs PDFKit draws: every colour type, interlaced, indexed with transparency', () => {
    expect(pngProblem(makePng({ width: 3, height: 2, colourType: 6 }))).toBeUndefined();
    expect(pngProblem(makePng({ width: 3, height: 2, colourType: 2, depth: 16 }))).toBeUndefined();
    expect(pngProblem(makePng({ width: 9, height: 9, colourType: 0, depth: 1 }))).toBeUndefined();
    expect(pngProblem(makePng({ width: 3, height: 2, colourType: 4 }))).toBeUndefined();
    const palette = [pngChunk('PLTE', Buffer.from([0, 0, 0, 255, 255, 255])), pngChunk('tRNS', Buffer.from([0]))];
    expect(pngProblem(makePng({ width: 3, height: 2, colourType: 3, before: palette }))).toBeUndefined();
    // Interlaced 3 x 2: passes 1, 4 and 6 hold one pixel each, pass 7 the second row's three; 2, 3 and 5 nothing.
    const passes = [1, 1, 1, 3];
    const interlaced = deflateSync(Buffer.concat(passes.map((cols) => Buffer.alloc(1 + cols * 4))));
    expect(pngProblem(makePng({ width: 3, height: 2, colourType: 6, interlaced: true, idat: interlaced }))).toBeUndefined();
  });

  test('refuses image data that does not inflate (what kills png-js from its zlib callback)', () => {
    expect(pngProblem(corruptRgbaPng)).toMatch(/image data that does not decompress \(incorrect header check\)/);
  });

  test('refuses a header claiming more than 4096 pixels a side before inflating anything', () => {
    expect(pngProblem(oversizedPng)).toBe('must be at most 4096 x 4096 pixels; this one says 30000 x 30000');
  });

  test('refuses image data shorter or longer than the size says, and unknown scanline filters', () => {
    expect(pngProblem(makePng({ width: 4, height: 4, idat: deflateSync(Buffer.alloc(10)) }))).toBe(
      'has 10 bytes of image data where its size needs 68',
    );
    expect(pngProblem(makePng({ width: 4, height: 4, idat: deflateSync(Buffer.alloc(1000)) }))).toBe(
      'has more image data than its 4 x 4 pixels need',
    );
    expect(pngProblem(makePng({ width: 1, height: 1, idat: deflateSync(Buffer.from([9, 0, 0, 0, 0])) }))).toBe(
      'has an unknown scanline filter 9',
    );
  });

  test('refuses what png-js cannot unpack or would read past the end of', () => {
    expect(pngProblem(makePng({ width: 2, height: 2, colourType: 6 }).subarray(0, 40))).toMatch(/cut short/);
    expect(pngProblem(makePng({ width: 2, height: 2, colourType: 3 }))).toMatch(/without a palette/);
    expect(pngProblem(makePng({ width: 2, height: 2, colourType: 6, depth: 4 }))).toMatch(/bit depth of 4, which RGBA PNGs cannot have/);
    expect(pngProblem(makePng({ width: 8, height: 8, colourType: 0, depth: 2, interlaced: true }))).toMatch(
      /2-bit pixels with interlacing/,
    );
    expect(pngProblem(makePng({ width: 2, height: 2, colourType: 9 }))).toMatch(/unknown colour type 9/);
    expect(pngProblem(Buffer.from('GIF89a-not-a-png'))).toMatch(/PNG signature/);
  });
});
