import { invoicing, type RequestOf } from '@bo/contracts';
import { dec, formatDateTime, toNumber } from '@bo/kernel';
import { handler, paginationOf, type Knex } from '@bo/runtime';
import { reportRefusals } from '../report/report-refusals';
import { readSettings } from '@bo/billing';
import { dueOf, statusOf, toLineRecord } from './invoice.record';
import { inSnapshot, invoicePage, linesOf } from './invoice.repository';
import { invoiceRefusals } from './invoice-refusals';

export const listInvoicesHandler = handler(invoicing.listInvoices, async (req, ctx) => {
  if (req.date_from && req.date_to && req.date_from > req.date_to) throw reportRefusals.dateFromAfterDateTo();
  if (req.amount_min !== undefined && req.amount_max !== undefined && dec(req.amount_min).greaterThan(dec(req.amount_max)))
    throw invoiceRefusals.amountRangeReversed();
  // One snapshot, so the page, its total_items and its lines agree.
  return inSnapshot(ctx.db, (db) => listPage(db, req, ctx.orgId));
});

async function listPage(db: Knex, req: RequestOf<typeof invoicing.listInvoices>, orgId: number) {
  const now = (await readSettings(db, orgId)).today();
  const { rows, total } = await invoicePage(db, orgId, req, req, now);
  const lines = req.include_items
    ? await linesOf(
        db,
        rows.map((r) => r.id),
      )
    : undefined;
  const invoices = rows.map((r) => ({
    id: r.id,
    orgid: r.org_id,
    invoicenumber: r.invoicenumber,
    payment_reference: r.payment_reference,
    invoicetype: r.invoicetype,
    invoicestatus: statusOf(r, now),
    partner: { id: r.partner_id, partnername: r.p_partnername, display_name: r.p_display_name, imageUrl: null },
    invoicedatetime: formatDateTime(r.invoicedatetime) as string,
    invoicedue: r.invoicedue,
    subtotal: toNumber(r.subtotal),
    tax_amount: toNumber(r.tax_amount),
    invoicetotal: toNumber(r.invoicetotal),
    amount_paid: toNumber(r.amount_paid),
    due_amount: dueOf(r),
    payment_state: r.payment_state,
    currency: r.currency,
    vat_total: toNumber(r.vat_total),
    allowance_total: toNumber(r.allowance_total),
    charge_total: toNumber(r.charge_total),
    creator: r.created_by ?? '',
    recurring: { enabled: r.recurring_enabled },
    ...(lines ? { line_items: (lines.get(r.id) ?? []).map(toLineRecord) } : {}),
  }));
  return {
    message: invoices.length ? 'Invoices retrieved successfully' : 'No invoices found',
    invoices,
    pagination: paginationOf(req, total),
  };
}
