import type { RenderFormat } from '@bo/contracts';
import { assertEInvoice, EInvoiceRefused, renderCii, renderFacturX, renderPeppol, renderUbl } from './einvoice/render';
import type { RenderableDocument, RenderOptions } from './model';
import { undrawable } from './pdf/fonts';
import { drawDocumentPdf } from './pdf/pool';

export interface RenderedFile {
  filename: string;
  content_type: 'application/pdf' | 'application/xml';
  content: Buffer;
}

/** A document number as a file name: letters, digits, dot, dash and underscore; anything else becomes `_`. */
export function fileStem(number: string): string {
  return number.replace(/[^A-Za-z0-9._-]/g, '_') || 'document';
}

/**
 * Factur-X is PDF/A-3, which forbids references to .notdef: a character the embedded fonts cannot
 * draw (CJK, Devanagari…) makes it no PDF/A. The plain PDF draws such characters as empty boxes.
 */
function assertDrawable(doc: RenderableDocument): void {
  const found = undrawable(doc);
  if (found.length === 0) return;
  throw new EInvoiceRefused(
    `${found.map((u) => u.field).join(', ')} hold characters the PDF's fonts cannot draw, which PDF/A forbids`,
    [],
    undefined,
    found,
  );
}

/** The document in one of the formats; e-invoice formats throw EInvoiceRefused when the document cannot be one. */
export async function renderDocument(doc: RenderableDocument, format: RenderFormat, options: RenderOptions = {}): Promise<RenderedFile> {
  const stem = fileStem(doc.number);
  switch (format) {
    case 'pdf':
      return { filename: `${stem}.pdf`, content_type: 'application/pdf', content: await drawDocumentPdf(doc, options) };
    case 'ubl':
      return { filename: `${stem}.ubl.xml`, content_type: 'application/xml', content: Buffer.from(await renderUbl(doc), 'utf8') };
    case 'peppol':
      return { filename: `${stem}.peppol.xml`, content_type: 'application/xml', content: Buffer.from(await renderPeppol(doc), 'utf8') };
    case 'cii':
      return { filename: `${stem}.cii.xml`, content_type: 'application/xml', content: Buffer.from(await renderCii(doc), 'utf8') };
    case 'facturx':
      // Checked before the PDF is drawn, so a refusal costs nothing.
      assertEInvoice(doc);
      assertDrawable(doc);
      return {
        filename: `${stem}.facturx.pdf`,
        content_type: 'application/pdf',
        content: Buffer.from(await renderFacturX(doc, await drawDocumentPdf(doc, options))),
      };
  }
}
