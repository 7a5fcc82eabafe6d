/** The little of fontkit (PDFKit's font engine) the glyph check uses; the package ships no types. */
declare module 'fontkit' {
  interface Font {
    hasGlyphForCodePoint(codePoint: number): boolean;
  }
  export function create(buffer: Buffer): Font;
}
