import { invoicing } from '@bo/contracts';
import { EInvoiceRefused, refusalBody, renderDocument } from '@bo/documents';
import { AppError, documentParties, findPartner, formatDateTime, handler } from '@bo/runtime';
import { invoiceDocument } from './invoice-document';
import { findInvoice, inSnapshot, linesOf } from './invoice.repository';
import type { InvoiceRow } from './invoice.record';

/**
 * `/invoicing/getinvoice` with a `format`: the invoice as a file (docs/documents.md). The invoice is
 * read in one snapshot, then the parties are asked of the partners service with no transaction
 * open; e-invoice formats refuse drafts, proformas, cancelled invoices and missing party data (400).
 */
export const renderInvoiceHandler = handler(invoicing.renderInvoice, async (req, ctx) => {
  const { invoice, lines, credited, partnerName } = await inSnapshot(ctx.db, async (db) => {
    const invoice = await findInvoice(db, ctx.orgId, req.id);
    const lines = (await linesOf(db, [invoice.id])).get(invoice.id) ?? [];
    // The preceding invoice (EN 16931 BG-3, BT-25/26) is the checked link alone, never the client's free text.
    const creditedId = invoice.credits_invoice_id;
    const source = creditedId === null ? undefined : await db<InvoiceRow>('invoices').where({ org_id: ctx.orgId, id: creditedId }).first();
    const credited = source
      ? { number: source.invoicenumber, issue_date: (formatDateTime(source.invoicedatetime) as string).slice(0, 10) }
      : null;
    const partnerName = (await findPartner(db, ctx.orgId, invoice.partner_id))?.partnername ?? null;
    return { invoice, lines, credited, partnerName };
  });
  const parties = await documentParties(ctx, invoice.partner_id);
  const doc = invoiceDocument({ invoice, lines, parties, partnerName, credited });
  try {
    const file = await renderDocument(doc, req.format, { warn: (message) => ctx.log.warn({ invoice_id: invoice.id }, message) });
    return {
      message: `Invoice ${invoice.invoicenumber} rendered as ${req.format}`,
      id: invoice.id,
      number: invoice.invoicenumber,
      format: req.format,
      filename: file.filename,
      content_type: file.content_type,
      content_base64: file.content.toString('base64'),
    };
  } catch (err) {
    if (!(err instanceof EInvoiceRefused)) throw err;
    const body = refusalBody(err, doc.kind);
    throw new AppError(400, body.code, `Invoice ${invoice.invoicenumber}: ${body.message}`, body.errors);
  }
});
