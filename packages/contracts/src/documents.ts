import { z } from 'zod';

/**
 * Rendered documents (docs/documents.md): a PDF for people, and the EN 16931 e-invoice syntaxes
 * for machines. `facturx` is the PDF as PDF/A-3 with the CII inside; `peppol` the UBL as Peppol
 * BIS Billing 3.0 (the parties' Peppol ids, a buyer reference).
 */
export const renderFormats = ['pdf', 'ubl', 'cii', 'facturx', 'peppol'] as const;
export type RenderFormat = (typeof renderFormats)[number];

/** The `format` of a render request, limited to what the document can become; another value is a 400 naming the choices. */
export function renderFormatField<const F extends readonly [RenderFormat, ...RenderFormat[]]>(allowed: F) {
  return z.enum(allowed);
}

/** A rendered document in the envelope: the file as base64 with the name and media type to save it under. */
export const renderedDocumentReply = z.object({
  message: z.string(),
  /** The document's id and number (invoice or quotation). */
  id: z.number().int(),
  number: z.string(),
  format: z.enum(renderFormats),
  filename: z.string(),
  /** `application/pdf` (pdf, facturx) or `application/xml` (ubl, cii, peppol). */
  content_type: z.enum(['application/pdf', 'application/xml']),
  content_base64: z.string(),
});
export type RenderedDocumentReply = z.infer<typeof renderedDocumentReply>;
