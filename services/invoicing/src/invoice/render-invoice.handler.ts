import { invoicing } from '@bo/contracts';
import { EInvoiceRefused, refusalBody, renderDocument } from '@bo/documents';
import { formatDate, formatDateTime } from '@bo/kernel';
import { handler, type HandlerContext, type Knex } from '@bo/runtime';
import { currentParties } from '@bo/billing';
import { accountingCurrency, findExchangeRate } from '../exchange-rate/exchange-rate.repository';
import { invoiceDocument, type InvoiceDocumentInput } from './invoice-document';
import { findInvoice, findInvoiceIfAny, inSnapshot, linesOf } from './invoice.repository';
import type { InvoiceRow } from './invoice.record';
import { issuedFile, keepIssuedFile, type IssuedFile } from './issued-files';
import { freezeIssuedParties, invoiceParties, isIssued, issuedParties, type IssuedParties } from './issued-snapshot';
import { invoiceRefusals } from './invoice-refusals';

/**
 * `/invoicing/getinvoice` with a `format`: the invoice as a file (docs/documents.md). The invoice is
 * read in one snapshot; an issued invoice answers the file its first render kept, and that first
 * render is made from the parties it froze, any other from the
 * parties asked of the partners service now, with no transaction open. Its VAT is also stated in
 * the organization's accounting currency (BT-6, BT-111) at the invoice's rate: the currency frozen
 * with the parties of an issued invoice, the organization's now on a draft (whose rate, when it has
 * none of its own, is the table's on its date, as validation would take it). E-invoice formats
 * refuse drafts, proformas, cancelled invoices and missing party data (400).
 */
export const renderInvoiceHandler = handler(invoicing.renderInvoice, async (req, ctx) => {
  const answer = (invoice: InvoiceRow, file: IssuedFile) => ({
    message: `Invoice ${invoice.invoicenumber} rendered as ${req.format}`,
    id: invoice.id,
    number: invoice.invoicenumber,
    format: req.format,
    filename: file.filename,
    content_type: file.content_type,
    content_base64: file.content.toString('base64'),
  });
  const read = await inSnapshot(ctx.db, async (db) => {
    const invoice = await findInvoice(db, ctx.orgId, req.id);
    const kept = isIssued(invoice) ? await issuedFile(db, invoice, req.format) : null;
    if (kept) return { invoice, kept };
    const lines = (await linesOf(db, [invoice.id])).get(invoice.id) ?? [];
    // The preceding invoice (EN 16931 BG-3, BT-25/26) is the checked link alone, never the client's free text.
    const creditedId = invoice.credits_invoice_id;
    const source = creditedId === null ? undefined : await findInvoiceIfAny(db, ctx.orgId, creditedId);
    const credited = source
      ? { number: source.invoicenumber, issue_date: (formatDateTime(source.invoicedatetime) as string).slice(0, 10) }
      : null;
    const frozen = await issuedParties(db, invoice);
    return { invoice, lines, credited, frozen: frozen && { parties: frozen, accounting_currency: invoice.accounting_currency } };
  });
  if (read.kept) return answer(read.invoice, read.kept);
  const { invoice, lines, credited, frozen } = read;
  const { parties, accounting_currency } = frozen ?? (await partiesNow(ctx, invoice));
  const accounting = { currency: accounting_currency, exchange_rate: await rateOf(ctx.db, invoice, parties.currency, accounting_currency) };
  const doc = invoiceDocument({ invoice, lines, parties, credited, accounting });
  try {
    const file = await renderDocument(doc, req.format, { warn: (message) => ctx.log.warn({ invoice_id: invoice.id }, message) });
    // An issued invoice's first render is kept and answered ever after (issued-files.ts).
    return answer(invoice, isIssued(invoice) ? await keepIssuedFile(ctx.db, invoice, req.format, file) : file);
  } catch (err) {
    if (!(err instanceof EInvoiceRefused)) throw err;
    const body = refusalBody(err, doc.kind);
    // Setting the missing data now changes nothing on an issued invoice: say what does.
    const message =
      isIssued(invoice) && err.missing.length > 0
        ? `An e-invoice needs ${(body.errors ?? []).map((e) => e.field).join(', ')}, which were not set when it was validated: an issued invoice keeps the parties it was validated with, so credit it and issue a new one once they are set`
        : body.message;
    throw invoiceRefusals.eInvoiceRefused(invoice.invoicenumber, body, message);
  }
});

/**
 * The parties and the accounting currency as they are now. An invoice issued before validation froze
 * them freezes them at its first render, so every render after it is the same.
 */
async function partiesNow(
  ctx: HandlerContext,
  invoice: InvoiceRow,
): Promise<{ parties: IssuedParties; accounting_currency: string | null }> {
  const current = await currentParties(ctx, invoice.partner_id);
  const parties = invoiceParties(invoice, current.records, current.partnerName);
  const accounting_currency = await accountingCurrency(ctx.db, ctx.orgId);
  return isIssued(invoice)
    ? ctx.db.transaction((trx) => freezeIssuedParties(trx, invoice, parties, accounting_currency))
    : { parties, accounting_currency };
}

/**
 * The rate the invoice's VAT is converted at: its own (given, or the table's kept when it was
 * validated), else on a draft or proforma the table's on its date; null in the accounting currency.
 */
async function rateOf(
  db: Knex,
  invoice: InvoiceRow,
  currency: string,
  accounting: string | null,
): Promise<InvoiceDocumentInput['accounting']['exchange_rate']> {
  if (invoice.exchange_rate !== null) return invoice.exchange_rate;
  if (!currency || accounting === null || currency === accounting || isIssued(invoice)) return null;
  return (await findExchangeRate(db, invoice.org_id, currency, formatDate(invoice.invoicedatetime) as string))?.rate ?? null;
}
