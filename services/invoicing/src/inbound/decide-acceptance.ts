import type { EventDataOf, ReplyOf, invoicing } from '@bo/contracts';
import { inboundRefusals } from './inbound-refusals';
import { inboundEventOf, toInboundRecord, type InboundRow } from './inbound.repository';

/** What an accept stores of the import and answers: the import as it leaves it, its event and the reply. */
export interface Acceptance {
  /** The import closed: its bill made for its supplier, nothing left to review. */
  inbound: InboundRow;
  event: EventDataOf<typeof invoicing.inboundBillCreated>;
  reply: ReplyOf<typeof invoicing.acceptInbound>;
}

/**
 * An accept of import `id`, decided on the import as read (undefined: the organization has none of
 * that id) and on the bill the reviewer's choices make (its supplier, the notes it carries): refused
 * unless the import is held for review; else what it leaves once the bill, whose id the caller has
 * only as it stores it, is made.
 */
export function decideAcceptance(
  row: InboundRow | undefined,
  id: number,
  bill: { partnerId: number; notes: readonly string[] },
): (invoiceId: number) => Acceptance {
  if (!row) throw inboundRefusals.importNotFound(id);
  if (row.status !== 'needs_review') throw inboundRefusals.acceptOfUnreviewableImport(row.id, row.status);
  return (invoiceId) => {
    const inbound: InboundRow = {
      ...row,
      status: 'bill_created',
      partner_id: bill.partnerId,
      invoice_id: invoiceId,
      review_reasons: [],
      notes: [...bill.notes],
    };
    return {
      inbound,
      event: inboundEventOf(inbound),
      reply: { message: 'Bill created', inbound: toInboundRecord(inbound) },
    };
  };
}
