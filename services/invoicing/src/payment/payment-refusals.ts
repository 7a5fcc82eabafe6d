import { defineRefusals } from '@bo/runtime';
import type { Refusal } from '../domain/cash';

/**
 * How the cash operations refuse, by name: every refusal is a 400 naming its field, thrown before
 * anything is written. The cash decisions (domain/cash.ts, dating.ts) return `Refusal` values; these
 * turn them into the module's named refusals. A lock date passed is the invoice module's.
 */
export const paymentRefusals = defineRefusals('payment', {
  /** What a cash decision refused (allocations, amounts, sources ...): the first one's code, every one in `errors`. */
  cashDecisionRefused: (refusals: readonly Refusal[]) => ({
    code: (refusals[0] as Refusal).code,
    message: refusals.map((r) => r.message).join('; '),
    errors: refusals.map((r) => ({ field: r.field, message: r.message })),
  }),
  /** An amount finer than the minor unit of its currency (minorUnitRefusal), named on its field. */
  amountFinerThanCurrency: (refusal: Refusal) => ({ code: 'validation_failed', field: refusal.field, message: refusal.message }),
  /** A date before something it follows (datedBeforeRefusal: the payment, a document, an allocation), named on its field. */
  datedBeforeEarlier: (refusal: Refusal) => ({ code: 'validation_failed', field: refusal.field, message: refusal.message }),
  /** No payment of the organization by that id. */
  paymentNotFound: (paymentId: number) => ({ code: 'not_found', message: `Payment ${paymentId} not found` }),
  /** Customer credit drawn from both, or neither, of a payment and a credit note. */
  oneCustomerCreditSourceRequired: () => ({
    code: 'validation_failed',
    field: 'payment_id',
    message: 'name exactly one source: payment_id or credit_note_id',
  }),
  /** Customer credit drawn from a voided payment (`refusal` says what the request would do with it). */
  customerCreditPaymentVoided: (paymentId: number, status: string, refusal: string) => ({
    code: 'invalid_state',
    message: `Payment ${paymentId} is ${status}; ${refusal}`,
  }),
  /** No credit note of the organization by that id. */
  creditNoteNotFound: (creditNoteId: number) => ({ code: 'not_found', message: `Credit note ${creditNoteId} not found` }),
  /** A document named as a credit note that is none (creditout, creditin). */
  notACreditNote: (invoicenumber: string, invoicetype: string) => ({
    code: 'validation_failed',
    field: 'credit_note_id',
    message: `${invoicenumber} is an ${invoicetype}, not a credit note (creditout, creditin)`,
  }),
  /** A credit note not validated (draft, cancelled ...): it gives no customer credit. */
  creditNoteNotValidated: (invoicenumber: string, status: string) => ({
    code: 'invalid_state',
    message: `${invoicenumber} is ${status}; only a validated credit note gives credit`,
  }),
  /** A refund larger than the customer credit left on its payment or credit note. */
  refundExceedsCustomerCredit: (amount: string, available: string, source: string | undefined) => ({
    code: 'validation_failed',
    field: 'amount',
    message: `${amount} exceeds the ${available} unallocated credit of ${source}`,
  }),
  /** A void of a payment already voided. */
  paymentAlreadyVoided: (paymentId: number) => ({ code: 'invalid_state', message: `Payment ${paymentId} is already voided` }),
  /** A void of a payment with refunds. */
  refundedPaymentVoided: (paymentId: number, refunded: string) => ({
    code: 'invalid_state',
    message: `Payment ${paymentId} has refunds of ${refunded}; a refunded payment cannot be voided`,
  }),
  /** A void of a payment settling documents written off since. */
  paymentSettlesWrittenOff: (paymentId: number, invoicenumbers: readonly string[]) => ({
    code: 'invalid_state',
    message: `Payment ${paymentId} settles ${invoicenumbers.join(', ')}, written off since; it cannot be voided`,
  }),
  /** A write-off of an invoice that cannot be written off (writeOffRefusal says why). */
  writeOffRefused: (invoicenumber: string, refusal: string) => ({
    code: 'invalid_state',
    message: `Invoice ${invoicenumber} cannot be written off: ${refusal}`,
  }),
  /** An exchange rate of a payment that does not go with its currency or documents (the message says how). */
  paymentRateRefused: (message: string) => ({ code: 'validation_failed', field: 'exchange_rate', message }),
});

/** Refusals of a cash decision as one 400: the first one's code, every one in `errors[]`. */
export function refuse(refusals: Refusal[]): never {
  throw paymentRefusals.cashDecisionRefused(refusals);
}
