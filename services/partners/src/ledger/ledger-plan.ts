import { invoicing, sales, type EventEnvelope } from '@bo/contracts';
import { dec, type Dec } from '@bo/kernel';
import { documentEffect, paymentEffect, paymentReceivableEffect, receivableEffect, transactionTypeOf } from './balance-effects';

/** A ledger row: a validated document or a payment, posted once per source. */
export interface LedgerEntry {
  partner_id: number;
  type: string;
  /** `invoice`, `payment`, or a cash application row (cash-plan.ts): `allocation`, `refund`, `payment_void`, ... */
  source: string;
  source_id: number;
  invoice_id: number;
  document_number: string;
  date: string;
  amount: string;
  balance_effect: string;
  /** The part of balance_effect that moves what the partner owes as a customer. */
  receivable_effect: string;
  /** The currency of the document or money (null when the event does not say: the partner's, else the organization's). */
  currency: string | null;
  /** A document's total in the accounting currency at its rate, when the event tells it. */
  accounting_amount: string | null;
  /**
   * What the row's journal entry moved the partner's trade accounts by in the accounting currency
   * (the event's `trade_delta`), signed as balance_effect; null when the event does not tell it.
   */
  accounting_effect: string | null;
  /** The part of accounting_effect on what the partner owes as a customer (null with it). */
  accounting_receivable_effect: string | null;
}

/**
 * The accounting-currency effects of a row whose event tells its journal entry's trade move: all of it
 * on the balance, and on the receivable when the row is on the customer side; both null when untold.
 */
export function journalEffects(
  tradeDelta: number | undefined,
  customerSide: boolean,
): Pick<LedgerEntry, 'accounting_effect' | 'accounting_receivable_effect'> {
  if (tradeDelta === undefined) return { accounting_effect: null, accounting_receivable_effect: null };
  const move = dec(tradeDelta);
  return { accounting_effect: move.toFixed(), accounting_receivable_effect: customerSide ? move.toFixed() : '0' };
}

/** A converted quotation's amount, committed until its invoice is validated or cancelled. */
export interface Commitment {
  invoice_id: number;
  partner_id: number;
  quotation_id: number;
  quotation_number: string;
  amount: string;
  currency: string | null;
}

/** What one event asks of the ledger. */
export interface LedgerStep {
  event: EventEnvelope;
  /** The invoice whose commitment this event ends (validation, cancellation). */
  releases?: number;
  /** The commitment this event opens (conversion). */
  commits?: Commitment;
  /** The row this event posts (validation, payment). */
  posts?: LedgerEntry;
  /** More rows it posts (a payment's allocations, cash-plan.ts). */
  also?: LedgerEntry[];
  /** A conversion to a document that commits no credit (a credit note, a vendor document). */
  commitsNothing?: true;
}

/** Reads what an event asks of the ledger; throws (the event fails and is retried, then dead-lettered) on data it cannot read. */
export function ledgerStep(event: EventEnvelope): LedgerStep {
  switch (event.type) {
    case invoicing.invoiceValidated.type: {
      const data = invoicing.invoiceValidated.data.parse(event.data);
      const total = String(data.invoicetotal);
      return {
        event,
        releases: data.invoice_id,
        posts: {
          partner_id: data.partner_id,
          type: transactionTypeOf(data.invoicetype),
          source: 'invoice',
          source_id: data.invoice_id,
          invoice_id: data.invoice_id,
          document_number: data.invoicenumber,
          date: data.invoicedatetime.slice(0, 10),
          amount: total,
          balance_effect: documentEffect(data.invoicetype, total).toFixed(),
          receivable_effect: receivableEffect(data.invoicetype, total).toFixed(),
          currency: data.currency ?? null,
          accounting_amount: data.accounting_total === undefined ? null : String(data.accounting_total),
          ...journalEffects(data.trade_delta, invoicing.receivableSign[data.invoicetype] !== 0),
        },
      };
    }
    case invoicing.invoiceCancelled.type:
      return { event, releases: invoicing.invoiceCancelled.data.parse(event.data).invoice_id };
    case invoicing.invoicePaymentRegistered.type: {
      const data = invoicing.invoicePaymentRegistered.data.parse(event.data);
      return {
        event,
        posts: {
          partner_id: data.partner_id,
          type: 'payment',
          source: 'payment',
          source_id: data.payment_id,
          invoice_id: data.invoice_id,
          document_number: data.invoicenumber,
          date: data.payment_date.slice(0, 10),
          amount: String(data.amount),
          balance_effect: paymentEffect(data.invoicetype, String(data.amount)).toFixed(),
          receivable_effect: paymentReceivableEffect(data.invoicetype, String(data.amount)).toFixed(),
          currency: data.currency ?? null,
          accounting_amount: null,
          ...journalEffects(data.trade_delta, invoicing.receivableSign[data.invoicetype] !== 0),
        },
      };
    }
    case sales.quotationConverted.type: {
      const data = sales.quotationConverted.data.parse(event.data);
      // Only what becomes a customer invoice is committed: a quotation converted to a credit note or a
      // vendor document will not be owed by the partner, so it adds nothing to its exposure.
      if (!invoicing.commitsCredit(data.invoicetype)) return { event, commitsNothing: true };
      return {
        event,
        commits: {
          invoice_id: data.invoice_id,
          partner_id: data.partner_id,
          quotation_id: data.quotation_id,
          quotation_number: data.quotation_number,
          amount: String(data.quotation_total),
          currency: data.currency ?? null,
        },
      };
    }
    default:
      return { event };
  }
}

/** The partner an event's row or commitment belongs to, if it names one. */
export function partnerOf(step: LedgerStep): number | undefined {
  return step.posts?.partner_id ?? step.also?.[0]?.partner_id ?? step.commits?.partner_id;
}

/** How much one currency of a partner moves, and what documents posted in it came to (their rate). */
export interface CurrencyMove {
  partner_id: number;
  /** null: the event did not say (the partner's currency, else the organization's, applies). */
  currency: string | null;
  balance: Dec;
  receivable: Dec;
  committed: Dec;
  /** Totals of the documents posted with their worth in the accounting currency ... */
  documents_total: Dec;
  /** ... and that worth: their rate, weighted by total. */
  documents_accounting: Dec;
  /** What the journal moved, in the accounting currency, for the rows that told it ... */
  booked_balance: Dec;
  booked_receivable: Dec;
  /** ... and what those same rows moved in face amounts. */
  booked_face_balance: Dec;
  booked_face_receivable: Dec;
}

/** Sums moves per partner and currency, in the order they first appear; a document row that tells its accounting worth adds to its rate. */
export function sumCurrencyMoves(
  moves: ReadonlyArray<{
    partner_id: number;
    currency: string | null;
    balance?: string;
    receivable?: string;
    committed?: string;
    /** A posted document's total and its worth in the accounting currency. */
    document?: { amount: string; accounting_amount: string | null };
    /** A posted row's journal move in the accounting currency (LedgerEntry accounting_effect), when told. */
    journal?: { balance: string; receivable: string };
  }>,
): CurrencyMove[] {
  const sums = new Map<string, CurrencyMove>();
  for (const m of moves) {
    const key = `${m.partner_id}:${m.currency ?? ''}`;
    const zero = dec(0);
    const sum = sums.get(key) ?? {
      partner_id: m.partner_id,
      currency: m.currency,
      balance: zero,
      receivable: zero,
      committed: zero,
      documents_total: zero,
      documents_accounting: zero,
      booked_balance: zero,
      booked_receivable: zero,
      booked_face_balance: zero,
      booked_face_receivable: zero,
    };
    if (m.balance !== undefined) sum.balance = sum.balance.plus(dec(m.balance));
    if (m.receivable !== undefined) sum.receivable = sum.receivable.plus(dec(m.receivable));
    if (m.committed !== undefined) sum.committed = sum.committed.plus(dec(m.committed));
    if (m.document && m.document.accounting_amount !== null) {
      sum.documents_total = sum.documents_total.plus(dec(m.document.amount));
      sum.documents_accounting = sum.documents_accounting.plus(dec(m.document.accounting_amount));
    }
    if (m.journal) {
      sum.booked_balance = sum.booked_balance.plus(dec(m.journal.balance));
      sum.booked_receivable = sum.booked_receivable.plus(dec(m.journal.receivable));
      sum.booked_face_balance = sum.booked_face_balance.plus(dec(m.balance ?? 0));
      sum.booked_face_receivable = sum.booked_face_receivable.plus(dec(m.receivable ?? 0));
    }
    sums.set(key, sum);
  }
  return [...sums.values()];
}
