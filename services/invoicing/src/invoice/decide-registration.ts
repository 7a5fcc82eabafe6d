import { amountText, dec, type DecimalLike } from '@bo/kernel';
import { invalidState, validationFailed } from '@bo/runtime';
import { dueOfDocument, minorUnitRefusal, paymentLines, settlementDirection, type BookedValue } from '../domain/cash';
import { datedBeforeRefusal } from '../domain/dating';
import { accountsFor, DEFAULT_PAYMENT_JOURNAL, type JournalLine } from '../domain/journal';
import { canTakePayment } from '../domain/status';
import { documentDated } from '../payment/dated';
import type { PaymentConversion } from '../payment/payment-rate';
import { documentStep } from '../payment/payment-values';
import { statusOf, type InvoiceRow } from './invoice.record';

/** What registering a payment on an invoice decides on, read under the invoice's lock (register-payment.handler.ts). */
export interface RegistrationState {
  invoice: Pick<
    InvoiceRow,
    | 'id'
    | 'invoicenumber'
    | 'invoicetype'
    | 'invoicestatus'
    | 'invoicedue'
    | 'invoicetotal'
    | 'amount_paid'
    | 'written_off_amount'
    | 'currency'
    | 'invoicedatetime'
    | 'tradeaccount'
    | 'chartofaccounts'
    | 'invoicejournal'
  >;
  /** The organization's posting day, by which an open invoice reads overdue. */
  today: string;
}

export interface Registration {
  /** The bank journal the money moves through. */
  journal: string;
  /** In from a customer, out to a vendor: the way the invoice's type settles. */
  direction: ReturnType<typeof settlementDirection>;
  /** Whether the payment pays what is due in full, so the invoice becomes paid. */
  paidInFull: boolean;
}

/**
 * Whether a payment of `amount` dated `date` may be registered on the invoice: it must be open or
 * overdue (invalid_state), and the amount in its currency's minor unit, the date not before the
 * invoice, the amount not above what is due (each validation_failed naming its field), refused in
 * that order.
 */
export function decideRegistration(state: RegistrationState, req: { amount: DecimalLike; date: string; journal?: string }): Registration {
  const { invoice } = state;
  const status = statusOf(invoice, state.today);
  if (!canTakePayment(status)) {
    throw invalidState(`A payment can only be registered on an open or overdue invoice; invoice ${invoice.invoicenumber} is ${status}`);
  }
  const unit = minorUnitRefusal('amount', req.amount, invoice.currency);
  if (unit) throw validationFailed(unit.message, [{ field: unit.field, message: unit.message }]);
  const early = datedBeforeRefusal('payment_date', req.date, 'a payment of it', [documentDated(invoice)]);
  if (early) throw validationFailed(early.message, [{ field: early.field, message: early.message }]);
  // What is due as dunning and the write-off weigh it: the total less what is paid and written off.
  const due = dueOfDocument(invoice);
  if (dec(req.amount).greaterThan(due)) {
    const message = `Overpayment: amount ${amountText(req.amount)} exceeds the amount due ${amountText(due)} on invoice ${invoice.invoicenumber}`;
    throw validationFailed(message, [{ field: 'amount', message }]);
  }
  return {
    journal: req.journal?.trim() || DEFAULT_PAYMENT_JOURNAL,
    direction: settlementDirection(invoice.invoicetype),
    paidInFull: dec(req.amount).equals(due),
  };
}

/**
 * The payment's entry once its rate is known: the bank at the payment's worth, the invoice cleared at
 * its own (docs/invoicing.md "Payments in another currency"), all of it settling the invoice, so no
 * credit is left on the trade account.
 */
export function registrationLines(
  state: RegistrationState,
  registration: Registration,
  amount: DecimalLike,
  conversion: Pick<PaymentConversion, 'accounting_amount'>,
  booked: ReadonlyMap<number, BookedValue>,
): JournalLine[] {
  const { invoice } = state;
  return paymentLines(
    registration.direction,
    conversion.accounting_amount,
    registration.journal,
    [{ account: accountsFor(invoice.invoicetype, invoice).trade, amount: documentStep(invoice, booked, amount) }],
    0,
  );
}
