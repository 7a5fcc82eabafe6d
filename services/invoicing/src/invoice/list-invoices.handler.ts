import { invoicing, type RequestOf } from '@bo/contracts';
import { dec, formatDateTime, toNumber } from '@bo/kernel';
import { handler, likeContains, paginationOf, selectPage, organizationToday, validationFailed, type Knex } from '@bo/runtime';
import { addDays } from '../domain/recurrence';
import { dueOf, statusOf, toLineRecord, type InvoiceRow } from './invoice.record';
import { inSnapshot, linesOf } from './invoice.repository';

type ListRow = InvoiceRow & { p_partnername: string | null; p_display_name: string | null };

const SORT_COLUMN = { number: 'i.invoicenumber', date: 'i.invoicedatetime', total: 'i.invoicetotal', due: 'i.invoicedue' } as const;

export const listInvoicesHandler = handler(invoicing.listInvoices, async (req, ctx) => {
  if (req.date_from && req.date_to && req.date_from > req.date_to) {
    throw validationFailed('date_from must not be after date_to', [{ field: 'date_from', message: 'date_from must not be after date_to' }]);
  }
  if (req.amount_min !== undefined && req.amount_max !== undefined && dec(req.amount_min).greaterThan(dec(req.amount_max))) {
    throw validationFailed('amount_min must not be more than amount_max', [
      { field: 'amount_min', message: 'amount_min must not be more than amount_max' },
    ]);
  }
  // One snapshot, so the page, its total_items and its lines agree.
  return inSnapshot(ctx.db, (db) => listPage(db, req, ctx.orgId));
});

async function listPage(db: Knex, req: RequestOf<typeof invoicing.listInvoices>, orgId: number) {
  const now = await organizationToday(db, orgId);
  const filtered = db('invoices as i')
    .leftJoin('partner_directory as p', (j) => j.on('p.org_id', 'i.org_id').andOn('p.id', 'i.partner_id'))
    .where('i.org_id', orgId)
    .modify((q: Knex.QueryBuilder) => {
      if (req.partner_ids?.length) q.whereIn('i.partner_id', req.partner_ids);
      if (req.status_filter) whereStatus(q, req.status_filter, now);
      if (req.date_from) q.where('i.invoicedatetime', '>=', `${req.date_from}T00:00:00Z`);
      if (req.date_to) q.where('i.invoicedatetime', '<', `${addDays(req.date_to, 1)}T00:00:00Z`);
      if (req.amount_min !== undefined) q.where('i.invoicetotal', '>=', req.amount_min);
      if (req.amount_max !== undefined) q.where('i.invoicetotal', '<=', req.amount_max);
      const search = req.search_key?.trim();
      if (search) {
        const pattern = likeContains(search);
        q.where((w) => {
          for (const column of ['i.invoicenumber', 'i.sourcenumber', 'p.partnername', 'p.display_name'])
            w.orWhereRaw(`?? ilike ? escape '\\'`, [column, pattern]);
        });
      }
    });
  const direction = req.sort_order ?? 'desc';
  const sortColumn = SORT_COLUMN[req.sort_by ?? 'date'];
  const { rows, total } = await selectPage<ListRow>(
    filtered.select('i.*', 'p.partnername as p_partnername', 'p.display_name as p_display_name'),
    req,
    (page) => page.orderByRaw(`?? ${direction} nulls last, i.id ${direction}`, [sortColumn]),
  );
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

/** `overdue` is not stored: it is an open invoice whose due date has passed, so `open` excludes those. */
function whereStatus(q: Knex.QueryBuilder, status: invoicing.InvoiceStatus, now: string): void {
  if (status === 'overdue') {
    q.where('i.invoicestatus', 'open').where('i.invoicedue', '<', now);
  } else if (status === 'open') {
    q.where('i.invoicestatus', 'open').where((w) => {
      w.whereNull('i.invoicedue').orWhere('i.invoicedue', '>=', now);
    });
  } else {
    q.where('i.invoicestatus', status);
  }
}
