import { invoicing } from '@bo/contracts';
import { handler, isUniqueViolation, today, type HandlerContext } from '@bo/runtime';
import { requirePartner } from '../partners/partner-directory';
import { newInvoiceFrom } from './create-input';
import { toInvoiceRecord, type InvoiceRow } from './invoice.record';
import { linesOf } from './invoice.repository';
import { insertInvoice } from './invoice.writer';

/**
 * Internal: a source document (a quotation) becomes at most one invoice. A repeat, even one racing
 * the first, answers with the invoice made first and `created: false`.
 */
export const createFromSourceHandler = handler(invoicing.createInvoiceFromSource, async (req, ctx) => {
  const first = await existing(ctx, req.sourcetype, req.sourceid);
  if (first) return first;
  const values = newInvoiceFrom(req, ctx.userId, new Date());
  await requirePartner(ctx, req.partner);
  try {
    const created = await ctx.db.transaction((trx) => insertInvoice(trx, ctx.orgId, { ...values, invoicestatus: req.invoicestatus ?? 'draft' }, req.line_items ?? []));
    return { message: 'Invoice created successfully', created: true, invoice: toInvoiceRecord(created.row, created.lines, today()) };
  } catch (err) {
    // The loser of a race rolled back whole (its number returns to the series) and reads the winner's.
    if (!isUniqueViolation(err, 'invoices_org_source')) throw err;
    const winner = await existing(ctx, req.sourcetype, req.sourceid);
    if (!winner) throw err;
    return winner;
  }
});

async function existing(ctx: HandlerContext, sourcetype: string, sourceid: string) {
  const row: InvoiceRow | undefined = await ctx.db('invoices').where({ org_id: ctx.orgId, sourcetype, sourceid }).first();
  if (!row) return undefined;
  const lines = (await linesOf(ctx.db, [row.id])).get(row.id) ?? [];
  return { message: 'Invoice already exists for this source', created: false, invoice: toInvoiceRecord(row, lines, today()) };
}
