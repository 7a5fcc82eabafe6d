import { parentPort } from 'node:worker_threads';
import { unpacked, type PdfJob, type PdfJobResult } from './pool';
import { renderLetterPdf } from './render-letter';
import { renderPdf } from './render-pdf';
import { renderStatementPdf } from './render-statement';

/**
 * The PDF thread (pool.ts): draws one PDF at a time, as asked, so the synchronous stretches of
 * PDFKit never hold the event loop of the service that asked.
 */
async function draw(job: PdfJob): Promise<PdfJobResult> {
  const warnings: string[] = [];
  try {
    const pdf =
      job.kind === 'document'
        ? await renderPdf(
            { ...job.doc, logo_png: job.doc.logo_png ? Buffer.from(job.doc.logo_png) : job.doc.logo_png },
            { warn: (m) => warnings.push(m) },
          )
        : job.kind === 'statement'
          ? await renderStatementPdf(job.statement)
          : await renderLetterPdf(job.letter);
    return { id: job.id, pdf, warnings };
  } catch (err) {
    return { id: job.id, error: err instanceof Error ? (err.stack ?? err.message) : String(err), warnings };
  }
}

parentPort?.on('message', (job: PdfJob) => {
  void draw(unpacked(job) as PdfJob).then((result) => parentPort?.postMessage(result));
});
