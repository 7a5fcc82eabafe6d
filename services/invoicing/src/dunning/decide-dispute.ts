import type { ReplyOf, invoicing } from '@bo/contracts';
import { filledIn } from '@bo/runtime';
import { invoiceRefusals } from '../invoice/invoice-refusals';
import { dunningRefusals } from './dunning-refusals';

/** What marking an invoice disputed decides on: the invoice's type and number and its mark, as read or locked. */
export interface DisputeState {
  invoicetype: string;
  invoicenumber: string | null;
  dunning_disputed: boolean;
  dunning_dispute_reason: string | null;
  /** When the mark was set, as formatDateTime writes it; null while it is not. */
  dunning_disputed_at: string | null;
}

/** The mark as a dispute request leaves it. */
export interface Dispute {
  invoice_id: number;
  invoicenumber: string;
  disputed: boolean;
  reason: string | null;
  /** When the mark was set: `kept` as it was, set `now` by the store, or cleared (null). */
  disputedAt: { kept: string | null } | 'now' | null;
}

/**
 * A dispute mark set or cleared on the invoice as read (undefined: the organization has none of that
 * id): only a customer invoice gets reminders, so only its mark is set. A mark already set keeps the
 * time it was first set, and its reason unless a new one is given; cleared, the reason and time go
 * with it.
 */
export function decideDispute(
  invoice: DisputeState | undefined,
  req: { invoice_id: number; disputed: boolean; reason?: string | undefined },
): Dispute {
  if (!invoice) throw invoiceRefusals.invoiceNotFound(req.invoice_id);
  if (invoice.invoicetype !== 'invoiceout' || invoice.invoicenumber === null)
    throw dunningRefusals.disputeOfNonCustomerInvoice(req.invoice_id, invoice.invoicetype);
  const was = invoice.dunning_disputed;
  return {
    invoice_id: req.invoice_id,
    invoicenumber: invoice.invoicenumber,
    disputed: req.disputed,
    reason: req.disputed ? (req.reason ?? (was ? invoice.dunning_dispute_reason : null)) : null,
    disputedAt: !req.disputed ? null : was ? { kept: invoice.dunning_disputed_at } : 'now',
  };
}

/** The reply of a dispute stored; `setAt`: the time a mark set `now` was stored at (else filled in, FILLED_IN). */
export function disputeReply(dispute: Dispute, setAt: string | null = filledIn<string>()): ReplyOf<typeof invoicing.dunningDispute> {
  return {
    message: dispute.disputed ? `Invoice ${dispute.invoicenumber} marked disputed` : `Invoice ${dispute.invoicenumber} no longer disputed`,
    invoice_id: dispute.invoice_id,
    invoicenumber: dispute.invoicenumber,
    disputed: dispute.disputed,
    reason: dispute.reason,
    disputed_at: dispute.disputedAt === null ? null : dispute.disputedAt === 'now' ? setAt : dispute.disputedAt.kept,
  };
}
