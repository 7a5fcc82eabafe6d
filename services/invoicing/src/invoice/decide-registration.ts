import type { EventDataOf, invoicing, ReplyOf, RequestOf } from '@bo/contracts';
import { amountText, dec, formatDateTime, localDate, toNumber, type DecimalLike } from '@bo/kernel';
import type { OrganizationSettings } from '@bo/billing';
import { dueOfDocument, minorUnitRefusal, paymentLines, settlementDirection, type BookedValue } from '../domain/cash';
import { datedBeforeRefusal } from '../domain/dating';
import { accountsFor, DEFAULT_PAYMENT_JOURNAL, tradeMove, type JournalLine } from '../domain/journal';
import { canTakePayment } from '../domain/status';
import { documentDated, paymentDay } from '../payment/dated';
import { conversionOf, needsTableRate, rateOn, type PaymentConversion } from '../payment/payment-rate';
import { documentStep } from '../payment/payment-values';
import { bookedValue } from '../payment/payment.repository';
import type { EntryHeader } from './journal.repository';
import { journalAmount } from './journal.repository';
import { dueOf, eventRef, statusOf, type InvoiceRow } from './invoice.record';
import { invoiceRefusals } from './invoice-refusals';
import { paymentRefusals } from '../payment/payment-refusals';

/**
 * Registering a payment on one invoice, load → decide → store (register-payment.handler.ts): what the
 * load read (registration.repository.ts) in, every row to write, both events and the reply out.
 */

/** What the load read: the settings held, the invoice locked, what it booked, the rates it may take, the ids drawn. */
export interface PaymentRegistrationState {
  /** The organization's settings (lock date, time zone, accounting currency); undefined or null when unseen. */
  settings: Pick<OrganizationSettings, 'lock_date' | 'time_zone' | 'default_currency'> | null | undefined;
  /** Null when the organization has no invoice of that id. */
  invoice: InvoiceRow | null;
  /** What the invoice's entry booked in the accounting currency (bookedQuery); null: no entry, or posted as it is. */
  booked: string | null;
  /** The rate table's rates of the invoice's currency against the accounting currency, over the dates the payment may fall on (rateWindow). */
  rates: ReadonlyArray<{ date: string; rate: string }>;
  ids: { entryId: number; paymentId: number };
  /** The transaction's timestamp: what the store's `now()` writes. */
  now: Date;
}

export type RegisterPaymentRequest = Pick<
  RequestOf<typeof invoicing.registerPayment>,
  'id' | 'amount' | 'payment_date' | 'journal' | 'exchange_rate' | 'userid'
>;

/** Everything a registration writes and answers. */
export interface PaymentRegistrationPlan {
  ids: { entryId: number; paymentId: number };
  entry: Omit<EntryHeader, 'payment_id'>;
  lines: JournalLine[];
  payment: Record<string, string | number | null>;
  allocation: { org_id: number; invoice_id: number; amount: DecimalLike; allocation_date: string; operation_key: string | null };
  /** The invoice as the registration leaves it. */
  invoice: InvoiceRow;
  events: {
    registered: EventDataOf<typeof invoicing.invoicePaymentRegistered>;
    paid: EventDataOf<typeof invoicing.invoicePaid> | null;
  };
  reply: ReplyOf<typeof invoicing.registerPayment>;
}

/**
 * The dates a payment's rate may be taken on, known before the organization's time zone is: its
 * `payment_date`, or without one today in whichever zone the organization is on (from the first
 * zone to reach a date to the last).
 */
export function rateWindow(paymentDate: string | undefined, instant: Date): { from: string; to: string } {
  if (paymentDate !== undefined) return { from: paymentDate, to: paymentDate };
  return { from: localDate(instant, 'Etc/GMT+12'), to: localDate(instant, 'Etc/GMT-14') };
}

/**
 * A payment registered on an invoice: dated on or after the lock date (validation_failed on
 * payment_date, asked before the invoice is looked for), the invoice found (not_found) and taking it
 * (decideRegistration), at a rate (paymentConversion's rules, conversionOf); then one payment of one
 * allocation, its entry (registrationLines), the invoice paid by the amount (paid when nothing is
 * left due, its version one more), and its events.
 */
export function decidePaymentRegistration(
  state: PaymentRegistrationState,
  req: RegisterPaymentRequest,
  ctx: { orgId: number; operationKey: string | null; userId: string | null; instant: Date },
): PaymentRegistrationPlan {
  const { today, paymentDate } = paymentDay(state.settings, req.payment_date, ctx.instant);
  const invoice = state.invoice;
  if (!invoice) throw invoiceRefusals.invoiceNotFound(req.id);
  const registration = decideRegistration({ invoice, today }, { amount: req.amount, date: paymentDate, journal: req.journal });
  const { journal, paidInFull } = registration;
  const accounting = state.settings?.default_currency ?? null;
  const cash = { currency: invoice.currency, amount: req.amount, date: paymentDate, given: req.exchange_rate, documents: [invoice] };
  const conversion = conversionOf(accounting, cash, needsTableRate(accounting, cash) ? rateOn(state.rates, paymentDate) : undefined);
  const booked = new Map([[invoice.id, bookedValue(invoice, state.booked, conversion.places)]]);
  const lines = registrationLines({ invoice, today }, registration, req.amount, conversion, booked);
  const updated: InvoiceRow = {
    ...invoice,
    amount_paid: journalAmount(dec(invoice.amount_paid).plus(dec(req.amount))),
    invoicestatus: paidInFull ? 'paid' : invoice.invoicestatus,
    paid_at: paidInFull ? (invoice.paid_at ?? state.now) : invoice.paid_at,
    updated_at: state.now,
    // The database counts one more for the transaction that changes the row (migration 017).
    version: invoice.version + 1,
  };
  const { entryId, paymentId } = state.ids;
  return {
    ids: state.ids,
    // A payment with one allocation (docs/invoicing.md, "Cash application"): listed, voided and
    // reported like any other, its events those register_payment always published.
    entry: {
      org_id: ctx.orgId,
      invoice_id: invoice.id,
      kind: 'payment',
      journalname: journal,
      journaldate: paymentDate,
      reference: invoice.invoicenumber,
    },
    lines,
    payment: {
      org_id: ctx.orgId,
      invoice_id: invoice.id,
      partner_id: invoice.partner_id,
      direction: registration.direction,
      currency: invoice.currency,
      exchange_rate: conversion.exchange_rate,
      accounting_amount: conversion.accounting_amount,
      amount: String(req.amount),
      allocated: String(req.amount),
      payment_date: paymentDate,
      journal,
      operation_key: ctx.operationKey,
      created_by: req.userid ?? ctx.userId,
    },
    allocation: {
      org_id: ctx.orgId,
      invoice_id: invoice.id,
      amount: req.amount,
      allocation_date: paymentDate,
      operation_key: ctx.operationKey,
    },
    invoice: updated,
    events: {
      registered: {
        ...eventRef(updated),
        payment_id: paymentId,
        amount: toNumber(req.amount),
        currency: updated.currency,
        payment_date: paymentDate,
        journal,
        amount_paid: toNumber(updated.amount_paid),
        due_amount: dueOf(updated),
        journal_entry_id: entryId,
        trade_delta: toNumber(tradeMove(lines)),
      },
      paid: paidInFull ? { ...eventRef(updated), paid_at: formatDateTime(updated.paid_at) as string } : null,
    },
    reply: {
      message: paidInFull ? `Payment registered; invoice ${updated.invoicenumber} is paid` : 'Payment registered successfully',
      invoice: {
        id: updated.id,
        invoicenumber: updated.invoicenumber,
        invoicestatus: statusOf(updated, today),
        invoicetotal: toNumber(updated.invoicetotal),
        amount_paid: toNumber(updated.amount_paid),
        due_amount: dueOf(updated),
      },
      payment: {
        id: paymentId,
        amount: toNumber(req.amount),
        payment_date: paymentDate,
        journal,
        journal_entry_id: entryId,
      },
    },
  };
}

/** What registering a payment on an invoice decides on, read under the invoice's lock (decidePaymentRegistration). */
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
  if (!canTakePayment(status)) throw invoiceRefusals.paymentOnUnpayableInvoice(invoice.invoicenumber, status);
  const unit = minorUnitRefusal('amount', req.amount, invoice.currency);
  if (unit) throw paymentRefusals.amountFinerThanCurrency(unit);
  const early = datedBeforeRefusal('payment_date', req.date, 'a payment of it', [documentDated(invoice)]);
  if (early) throw paymentRefusals.datedBeforeEarlier(early);
  // What is due as dunning and the write-off weigh it: the total less what is paid and written off.
  const due = dueOfDocument(invoice);
  if (dec(req.amount).greaterThan(due)) throw invoiceRefusals.overpayment(amountText(req.amount), amountText(due), invoice.invoicenumber);
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
