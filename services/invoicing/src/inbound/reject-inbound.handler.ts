import { invoicing } from '@bo/contracts';
import { handler, recordEvent } from '@bo/runtime';
import { inboundRefusals } from './inbound-refusals';
import { inboundById, markRejected, toInboundRecord } from './inbound.repository';

/**
 * Closes an import held for review without a bill. It keeps its original and its report; it gives up
 * its supplier key, so the supplier may send a corrected document under the same number.
 */
export const rejectInboundHandler = handler(invoicing.rejectInbound, async (req, ctx) => {
  const row = await inboundById(ctx.db, ctx.orgId, req.id, { lock: true });
  if (!row) throw inboundRefusals.importNotFound(req.id);
  if (row.status !== 'needs_review') throw inboundRefusals.rejectOfUnreviewableImport(row.id, row.status);
  await markRejected(ctx.db, row.id, req.reason);
  const stored = (await inboundById(ctx.db, ctx.orgId, row.id))!;
  await recordEvent(ctx.db, invoicing.inboundRejected, ctx.orgId, {
    inbound_id: stored.id,
    status: stored.status,
    syntax: stored.syntax,
    invoice_number: stored.invoice_number,
    issue_date: stored.issue_date,
    partner_id: stored.partner_id,
    invoice_id: stored.invoice_id,
    sha256: stored.sha256.trim(),
    reasons: [req.reason],
  });
  return { message: 'Import rejected', inbound: toInboundRecord(stored) };
});
