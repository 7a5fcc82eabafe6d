import type { EventDataOf, ReplyOf, invoicing } from '@bo/contracts';
import { inboundRefusals } from './inbound-refusals';
import { inboundEventOf, toInboundRecord, type InboundRow } from './inbound.repository';

/** What a reject stores and answers: the import as it leaves it, its event and the reply. */
export interface Rejection {
  /** The import closed: rejected, its reason kept, its supplier key given up. */
  inbound: InboundRow;
  event: EventDataOf<typeof invoicing.inboundRejected>;
  reply: ReplyOf<typeof invoicing.rejectInbound>;
}

/**
 * A reject of import `id`, decided on the import as read (undefined: the organization has none of
 * that id): refused unless it is held for review; else it is closed with `reason`, keeping its
 * original and its report, and giving up its supplier key, so the supplier may send a corrected
 * document under the same number.
 */
export function decideRejection(row: InboundRow | undefined, req: { id: number; reason: string }): Rejection {
  if (!row) throw inboundRefusals.importNotFound(req.id);
  if (row.status !== 'needs_review') throw inboundRefusals.rejectOfUnreviewableImport(row.id, row.status);
  const inbound: InboundRow = { ...row, status: 'rejected', rejection_reason: req.reason, supplier_key: null };
  return {
    inbound,
    event: {
      ...inboundEventOf(inbound),
      reasons: [req.reason],
    },
    reply: { message: 'Import rejected', inbound: toInboundRecord(inbound) },
  };
}
