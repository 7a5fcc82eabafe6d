import type { RenderFormat } from '@bo/contracts';
import { assertEInvoice, renderCii, renderFacturX, renderUbl } from './einvoice/render';
import type { RenderableDocument, RenderOptions } from './model';
import { renderPdf } from './pdf/render-pdf';

export interface RenderedFile {
  filename: string;
  content_type: 'application/pdf' | 'application/xml';
  content: Buffer;
}

/** A document number as a file name: letters, digits, dot, dash and underscore; anything else becomes `_`. */
export function fileStem(number: string): string {
  return number.replace(/[^A-Za-z0-9._-]/g, '_') || 'document';
}

/** The document in one of the formats; e-invoice formats throw EInvoiceRefused when the document cannot be one. */
export async function renderDocument(doc: RenderableDocument, format: RenderFormat, options: RenderOptions = {}): Promise<RenderedFile> {
  const stem = fileStem(doc.number);
  switch (format) {
    case 'pdf':
      return { filename: `${stem}.pdf`, content_type: 'application/pdf', content: await renderPdf(doc, options) };
    case 'ubl':
      return { filename: `${stem}.ubl.xml`, content_type: 'application/xml', content: Buffer.from(await renderUbl(doc), 'utf8') };
    case 'cii':
      return { filename: `${stem}.cii.xml`, content_type: 'application/xml', content: Buffer.from(await renderCii(doc), 'utf8') };
    case 'facturx':
      // Checked before the PDF is drawn, so a refusal costs nothing.
      assertEInvoice(doc);
      return { filename: `${stem}.facturx.pdf`, content_type: 'application/pdf', content: Buffer.from(await renderFacturX(doc, await renderPdf(doc, options))) };
  }
}
