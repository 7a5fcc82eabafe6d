import { invoicing } from '@bo/contracts';
import { EInvoiceRefused, refusalBody, renderDocument } from '@bo/documents';
import { formatDateTime } from '@bo/kernel';
import { AppError, currentParties, handler, type HandlerContext } from '@bo/runtime';
import { invoiceDocument } from './invoice-document';
import { findInvoice, inSnapshot, linesOf } from './invoice.repository';
import type { InvoiceRow } from './invoice.record';
import { freezeIssuedParties, invoiceParties, isIssued, issuedParties, type IssuedParties } from './issued-snapshot';

/**
 * `/invoicing/getinvoice` with a `format`: the invoice as a file (docs/documents.md). The invoice is
 * read in one snapshot; a validated invoice renders from the parties it froze, any other from the
 * parties asked of the partners service now, with no transaction open. E-invoice formats refuse
 * drafts, proformas, cancelled invoices and missing party data (400).
 */
export const renderInvoiceHandler = handler(invoicing.renderInvoice, async (req, ctx) => {
  const { invoice, lines, credited, frozen } = await inSnapshot(ctx.db, async (db) => {
    const invoice = await findInvoice(db, ctx.orgId, req.id);
    const lines = (await linesOf(db, [invoice.id])).get(invoice.id) ?? [];
    // The preceding invoice (EN 16931 BG-3, BT-25/26) is the checked link alone, never the client's free text.
    const creditedId = invoice.credits_invoice_id;
    const source = creditedId === null ? undefined : await db<InvoiceRow>('invoices').where({ org_id: ctx.orgId, id: creditedId }).first();
    const credited = source
      ? { number: source.invoicenumber, issue_date: (formatDateTime(source.invoicedatetime) as string).slice(0, 10) }
      : null;
    return { invoice, lines, credited, frozen: await issuedParties(db, invoice) };
  });
  const doc = invoiceDocument({ invoice, lines, parties: frozen ?? (await partiesNow(ctx, invoice)), credited });
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
    // Setting the missing data now changes nothing on an issued invoice: say what does.
    const message =
      isIssued(invoice) && err.missing.length > 0
        ? `An e-invoice needs ${(body.errors ?? []).map((e) => e.field).join(', ')}, which were not set when it was validated: an issued invoice keeps the parties it was validated with, so credit it and issue a new one once they are set`
        : body.message;
    throw new AppError(400, body.code, `Invoice ${invoice.invoicenumber}: ${message}`, body.errors);
  }
});

/**
 * The parties as they are now. An invoice issued before validation froze its parties freezes them at
 * its first render, so every render after it is the same.
 */
async function partiesNow(ctx: HandlerContext, invoice: InvoiceRow): Promise<IssuedParties> {
  const current = await currentParties(ctx, invoice.partner_id);
  const parties = invoiceParties(invoice, current.records, current.partnerName);
  return isIssued(invoice) ? ctx.db.transaction((trx) => freezeIssuedParties(trx, invoice, parties)) : parties;
}
