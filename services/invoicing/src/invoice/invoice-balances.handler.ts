import { invoicing, type RequestOf } from '@bo/contracts';
import { formatDate, toNumber } from '@bo/kernel';
import { handler, type Knex } from '@bo/runtime';
import { readSettings } from '@bo/billing';
import { dueOf, statusOf, toLineRecord } from './invoice.record';
import { entriesOfInvoice, inSnapshot, linesOf, readInvoice, type InvoiceEntryRow } from './invoice.repository';

export const invoiceBalancesHandler = handler(invoicing.invoiceBalances, (req, ctx) =>
  // One snapshot, so amount_paid always equals the sum of the payjournals shown beside it.
  inSnapshot(ctx.db, (db) => balancesView(db, req, ctx.orgId)),
);

async function balancesView(db: Knex, req: RequestOf<typeof invoicing.invoiceBalances>, orgId: number) {
  const invoice = await readInvoice(db, orgId, req.id);
  const entries = await entriesOfInvoice(db, orgId, invoice.id);
  const asJournal = (e: InvoiceEntryRow) => ({
    id: e.id,
    journalname: e.journalname,
    journaldate: formatDate(e.journaldate) as string,
    amount: toNumber(e.amount),
  });
  const record = {
    id: invoice.id,
    invoicenumber: invoice.invoicenumber,
    payment_reference: invoice.payment_reference,
    payment_state: invoice.payment_state,
    invoicetype: invoice.invoicetype,
    invoicestatus: statusOf(invoice, (await readSettings(db, orgId)).today()),
    invoicetotal: toNumber(invoice.invoicetotal),
    amount_paid: toNumber(invoice.amount_paid),
    due_amount: dueOf(invoice),
    journals: entries.filter((e) => e.kind === 'invoice').map(asJournal),
    payjournals: entries.filter((e) => e.kind === 'payment').map(asJournal),
  };
  if (!req.include_items) return { message: 'Invoice balances retrieved successfully', invoices: [record] };
  const lines = (await linesOf(db, [invoice.id])).get(invoice.id) ?? [];
  return { message: 'Invoice balances retrieved successfully', invoices: [{ ...record, line_items: lines.map(toLineRecord) }] };
}
