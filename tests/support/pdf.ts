import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * PDFs read the way a person's tools read them, with poppler-utils (.ci/run installs it):
 * the text pdftotext extracts, the files pdfdetach finds attached, and page 1 as pdftoppm draws it.
 */
const root = join(__dirname, '..', '..');

function withFile<T>(pdf: Uint8Array, use: (file: string, dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'pdf-'));
  try {
    const file = join(dir, 'doc.pdf');
    writeFileSync(file, pdf);
    return use(file, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The text of every page, in reading order with the layout's spacing squeezed to single spaces. */
export function pdfText(pdf: Uint8Array): string {
  return withFile(pdf, (file) =>
    execFileSync('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-'], { encoding: 'utf8' }).replace(/[ \t]+/g, ' '),
  );
}

/** Number of pages, as pdfinfo counts them. */
export function pdfPages(pdf: Uint8Array): number {
  const info = withFile(pdf, (file) => execFileSync('pdfinfo', [file], { encoding: 'utf8' }));
  return Number(/^Pages:\s+(\d+)/m.exec(info)?.[1] ?? 0);
}

/** The info dictionary and what pdfinfo says of the file (`Title`, `Producer`, `PDF version`…), dates in ISO 8601. */
export function pdfInfo(pdf: Uint8Array): Record<string, string> {
  const info = withFile(pdf, (file) => execFileSync('pdfinfo', ['-isodates', file], { encoding: 'utf8' }));
  return Object.fromEntries([...info.matchAll(/^([^:\n]+):[ \t]*(.*)$/gm)].map((m) => [m[1]!, m[2]!.trim()]));
}

/** The XMP metadata stream of the PDF as pdfinfo reads it. */
export function pdfXmp(pdf: Uint8Array): string {
  return withFile(pdf, (file) => execFileSync('pdfinfo', ['-meta', file], { encoding: 'utf8' }));
}

/** The files embedded in the PDF, by name. */
export function pdfAttachments(pdf: Uint8Array): Record<string, Buffer> {
  return withFile(pdf, (file, dir) => {
    const out = join(dir, 'attachments');
    mkdirSync(out);
    execFileSync('pdfdetach', ['-saveall', '-o', out, file], { stdio: 'pipe' });
    return Object.fromEntries(readdirSync(out).map((name) => [name, readFileSync(join(out, name))]));
  });
}

/** Draws page 1 at 60 dpi into artifacts/<folder>/<name>.png (kept after the run for people to look at); returns the path. */
export function savePage1Png(pdf: Uint8Array, folder: string, name: string): string {
  const dir = join(root, 'artifacts', folder);
  mkdirSync(dir, { recursive: true });
  const prefix = join(dir, name);
  withFile(pdf, (file) =>
    execFileSync('pdftoppm', ['-png', '-r', '60', '-f', '1', '-l', '1', '-singlefile', file, prefix], { stdio: 'pipe' }),
  );
  return `${prefix}.png`;
}

export interface PdfWord {
  page: number;
  text: string;
  /** Points from the top of the page. */
  yMin: number;
  yMax: number;
}

/** Every word with its box, as `pdftotext -bbox` finds them (coordinates in points from the top left). */
export function pdfWords(pdf: Uint8Array): PdfWord[] {
  const html = withFile(pdf, (file) =>
    execFileSync('pdftotext', ['-bbox', '-enc', 'UTF-8', file, '-'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }),
  );
  const words: PdfWord[] = [];
  let page = 0;
  for (const m of html.matchAll(/<page [^>]*>|<word xMin="[\d.]+" yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">([^<]*)<\/word>/g)) {
    if (m[0].startsWith('<page')) page++;
    else
      words.push({
        page,
        text: m[3]!
          .replace(/&amp;/g, '&')
          .replace(/&lt;/g, '<')
          .replace(/&gt;/g, '>')
          .replace(/&quot;/g, '"'),
        yMin: Number(m[1]),
        yMax: Number(m[2]),
      });
  }
  return words;
}
