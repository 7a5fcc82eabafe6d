import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { Dec } from '@bo/kernel';
import type { RenderableDocument, RenderOptions } from '../model';
import { ThreadPool } from '../thread-pool';
import { renderPdf } from './render-pdf';
import { renderLetterPdf, type ReminderLetterDocument } from './render-letter';
import { renderStatementPdf, type StatementDocument } from './render-statement';

type PdfTask =
  | { kind: 'document'; doc: RenderableDocument }
  | { kind: 'statement'; statement: StatementDocument }
  | { kind: 'letter'; letter: ReminderLetterDocument };
export type PdfJob = PdfTask & { id: number };
export type PdfJobResult = { id: number; warnings: string[] } & ({ pdf: Uint8Array } | { error: string });

/**
 * What crosses to a thread is structured-cloned, which keeps plain data but not classes: a decimal
 * (the model's money, `taxes`) would arrive as a bare object. `packed` tags each one with its exact
 * text, and the thread's `unpacked` makes it a decimal again.
 */
export function packed(value: unknown): unknown {
  if (Dec.isDecimal(value)) return { $decimal: value.toString() };
  if (Array.isArray(value)) return value.map(packed);
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value) || value instanceof Date) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, packed(v)]));
}
export function unpacked(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(unpacked);
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value) || value instanceof Date) return value;
  const entries = Object.entries(value);
  if (entries.length === 1 && entries[0]![0] === '$decimal') return new Dec(entries[0]![1] as string);
  return Object.fromEntries(entries.map(([k, v]) => [k, unpacked(v)]));
}

/**
 * PDFs are drawn off the event loop. PDFKit lays a page out in one synchronous stretch of 50 to
 * 300 ms on this hardware; on the service's own thread that stretch delays every other request the
 * process holds, another organization's included, however fairly they were admitted. So PDFs go to
 * a small pool of worker threads (../thread-pool.ts: `PDF_THREADS`, default one fewer than the
 * cores, at least one, at most two); a PDF has no time limit.
 *
 * The thread runs the built module (`dist/pdf/pdf-thread.js`). Where it is not built (a test run
 * from sources before `npm run build`), or with `PDF_THREADS=0`, PDFs are drawn in the calling thread,
 * to the same bytes.
 */
let pool: ThreadPool<PdfTask, PdfJobResult> | null | undefined;
function thePool(): ThreadPool<PdfTask, PdfJobResult> | null {
  if (pool === undefined) {
    const configured = process.env.PDF_THREADS;
    const size = configured !== undefined && configured !== '' ? Number(configured) : Math.min(2, Math.max(1, availableParallelism() - 1));
    // From dist/pdf this is the sibling; from src/pdf (tests run from sources) the built one.
    const script = [join(__dirname, 'pdf-thread.js'), join(__dirname, '..', '..', 'dist', 'pdf', 'pdf-thread.js')].find((p) =>
      existsSync(p),
    );
    pool =
      Number.isInteger(size) && size > 0 && script
        ? new ThreadPool<PdfTask, PdfJobResult>({
            spawn: () => new Worker(script),
            size,
            lost: (code) => `the PDF thread stopped (exit code ${code})`,
            encode: packed,
          })
        : null;
  }
  return pool;
}

function outcome(result: PdfJobResult, options: RenderOptions): Buffer {
  for (const w of result.warnings) options.warn?.(w);
  if ('error' in result) throw new Error(result.error);
  return Buffer.from(result.pdf.buffer, result.pdf.byteOffset, result.pdf.byteLength);
}

/** The document as a PDF, drawn on a PDF thread (renderPdf's bytes). */
export async function drawDocumentPdf(doc: RenderableDocument, options: RenderOptions = {}): Promise<Buffer> {
  const p = thePool();
  if (!p) return renderPdf(doc, options);
  return outcome(await p.run({ kind: 'document', doc }), options);
}

/** A statement as a PDF, drawn on a PDF thread (renderStatementPdf's bytes). */
export async function drawStatementPdf(statement: StatementDocument): Promise<Buffer> {
  const p = thePool();
  if (!p) return renderStatementPdf(statement);
  return outcome(await p.run({ kind: 'statement', statement }), {});
}

/** A reminder letter as a PDF, drawn on a PDF thread (renderLetterPdf's bytes). */
export async function drawLetterPdf(letter: ReminderLetterDocument): Promise<Buffer> {
  const p = thePool();
  if (!p) return renderLetterPdf(letter);
  return outcome(await p.run({ kind: 'letter', letter }), {});
}
