import { sales } from '@bo/contracts';
import { countOpenUnderFence, handler, organizationToday, type Knex } from '@bo/runtime';
import { CONVERTIBLE, EFFECTIVE_STATUS_SQL } from '../quotation/quotation.repository';

const LISTED = 20;

/**
 * Internal, asked by partners before it deletes a partner: quotations still open for it. Open means
 * draft, sent or accepted and not expired (in the organization's time zone), or frozen by a
 * conversion that has not ended (it may already have made an invoice).
 */
export const openQuotationsHandler = handler(sales.partnerOpenQuotations, async (req, ctx) => {
  const now = await organizationToday(ctx.db, ctx.orgId);
  // With fence_ms (a delete about to commit) and none open, new quotations for it wait for the delete's outcome.
  return countOpenUnderFence(ctx.db, ctx.orgId, req.partner_id, req.fence_ms, (db) => openQuotations(db, ctx.orgId, req.partner_id, now));
});

async function openQuotations(db: Knex, orgId: number, partnerId: number, now: string) {
  const open = db('quotations as q')
    .where({ 'q.org_id': orgId, 'q.partner_id': partnerId })
    .whereIn('q.status', CONVERTIBLE)
    .where((w) => {
      void w.whereRaw(`${EFFECTIVE_STATUS_SQL} <> 'expired'`, [now]).orWhereNotNull('q.conversion_attempted_at');
    });
  const [rows, counted] = await Promise.all([
    open.clone().select('q.id', 'q.quotation_number', 'q.quotation_type', 'q.status').orderBy('q.id').limit(LISTED),
    open.clone().count<{ count: string }[]>({ count: '*' }),
  ]);
  const total = Number(counted[0]?.count ?? 0);
  return {
    message: total ? `Partner ${partnerId} has ${total} open quotation(s)` : `Partner ${partnerId} has no open quotations`,
    open_documents: total,
    active_contracts: 0,
    documents: (rows as Array<{ id: number; quotation_number: string; quotation_type: string; status: string }>).map((r) => ({
      kind: 'quotation' as const,
      id: r.id,
      number: r.quotation_number,
      type: r.quotation_type,
      status: r.status,
    })),
  };
}
