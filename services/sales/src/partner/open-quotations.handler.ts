import { sales } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { countOpenUnderFence, readSettings } from '@bo/billing';
import { openQuotationsOf } from '../quotation/quotation.repository';

const LISTED = 20;

/**
 * Internal, asked by partners before it deletes a partner: quotations still open for it. Open means
 * draft, sent or accepted and not expired (in the organization's time zone), or frozen by a
 * conversion that has not ended (it may already have made an invoice).
 */
export const openQuotationsHandler = handler(sales.partnerOpenQuotations, async (req, ctx) => {
  const now = (await readSettings(ctx.db, ctx.orgId)).today();
  // With fence_ms (a delete about to commit) and none open, new quotations for it wait for the delete's outcome.
  return countOpenUnderFence(ctx.db, ctx.orgId, req.partner_id, req.fence_ms, async (db) => {
    const { rows, total } = await openQuotationsOf(db, ctx.orgId, req.partner_id, now, LISTED);
    return {
      message: total ? `Partner ${req.partner_id} has ${total} open quotation(s)` : `Partner ${req.partner_id} has no open quotations`,
      open_documents: total,
      active_contracts: 0,
      documents: rows.map((r) => ({
        kind: 'quotation' as const,
        id: r.id,
        number: r.quotation_number,
        type: r.quotation_type,
        status: r.status,
      })),
    };
  });
});
