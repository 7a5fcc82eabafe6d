import type { invoicing } from '@bo/contracts';
import { dec, sum, type Dec, type DecimalLike } from '@bo/kernel';

type CreditType = 'creditout' | 'creditin';

/** A credit note credits an invoice of its own side: a customer credit note a sale, a vendor one a bill. */
export const CREDITED_TYPE: Record<CreditType, 'invoiceout' | 'invoicein'> = { creditout: 'invoiceout', creditin: 'invoicein' };

/** Statuses of an issued invoice (`overdue` is an `open` one read later): only these may be credited. */
const ISSUED = new Set(['open', 'paid']);

/** A source type naming an invoice (any case): on a credit note, with a `sourceid`, it names the invoice credited. */
const INVOICE_SOURCE = /^(invoice|invoiceout|invoicein)$/i;

export function isCreditNote(type: invoicing.InvoiceType): type is CreditType {
  return type === 'creditout' || type === 'creditin';
}

/**
 * What a new document says it credits: a credit note with `sourcetype` `invoice` (or `invoiceout`,
 * `invoicein`) and a `sourceid` names the invoice it credits by id. Anything else (another type, another
 * source type, no id) is free text that links nothing: `none`. An id that cannot be one is `bad`.
 */
export function claimedCreditedInvoice(doc: {
  invoicetype: invoicing.InvoiceType;
  sourcetype?: string | null;
  sourceid?: string | null;
}): { kind: 'none' } | { kind: 'invoice'; id: number } | { kind: 'bad' } {
  if (!isCreditNote(doc.invoicetype) || !doc.sourcetype || !INVOICE_SOURCE.test(doc.sourcetype) || !doc.sourceid) return { kind: 'none' };
  if (!/^[1-9]\d{0,9}$/.test(doc.sourceid) || Number(doc.sourceid) > 2_147_483_647) return { kind: 'bad' };
  return { kind: 'invoice', id: Number(doc.sourceid) };
}

/**
 * Why a credit note may not credit this invoice (already known to be of its organization), or null:
 * the invoice must be the same partner's, issued (open, paid or overdue), and of the paired type.
 */
export function creditLinkProblem(
  note: { invoicetype: CreditType; partner_id: number },
  credited: { invoicetype: invoicing.InvoiceType; partner_id: number; invoicestatus: string; invoicenumber: string },
): { code: 'validation_failed' | 'invalid_state'; message: string } | null {
  const wanted = CREDITED_TYPE[note.invoicetype];
  if (credited.invoicetype !== wanted) {
    return {
      code: 'validation_failed',
      message: `a ${note.invoicetype} credits an ${wanted}; ${credited.invoicenumber} is an ${credited.invoicetype}`,
    };
  }
  if (credited.partner_id !== note.partner_id) {
    return {
      code: 'validation_failed',
      message: `${credited.invoicenumber} is partner ${credited.partner_id}'s, not partner ${note.partner_id}'s`,
    };
  }
  if (!ISSUED.has(credited.invoicestatus)) {
    return {
      code: 'invalid_state',
      message: `${credited.invoicenumber} is ${credited.invoicestatus}; only an issued invoice (open, paid or overdue) can be credited`,
    };
  }
  return null;
}

/**
 * The currency a credit note is in: its invoice's. A note that names none takes the invoice's; one
 * that names another is refused by name (`currency`). An invoice stored without a currency (from
 * before currencies) sets no rule: the note keeps its own.
 */
export function creditNoteCurrency(
  note: { currency: string | null },
  invoice: { currency: string | null; invoicenumber: string },
): { currency: string | null } | { problem: string } {
  if (invoice.currency === null || note.currency === null || note.currency === invoice.currency)
    return { currency: invoice.currency ?? note.currency };
  return {
    problem: `a credit note is in the currency of the invoice it credits: ${invoice.invoicenumber} is in ${invoice.currency}, not ${note.currency}`,
  };
}

/** An amount with the currency it is in (null: a document from before currencies). */
export interface Priced {
  amount: DecimalLike;
  currency: string | null;
}

export type CreditRoom =
  | {
      fits: boolean;
      /** What the validated credit notes already credit. */
      credited: Dec;
      /** What may still be credited before this note: the invoice total less what is credited. */
      left: Dec;
    }
  | {
      fits: false;
      /** Validated credit notes in another currency than the invoice's: no cap can be judged across them. */
      foreign: Priced[];
    };

/**
 * Any number of credit notes may credit one invoice; together the validated ones never credit more
 * than its total. Every amount is in the invoice's currency (creditNoteCurrency), compared exactly
 * to its minor unit; a credit in another currency (validated before the rule) is never added to it.
 */
export function creditRoom(invoice: Priced, validatedCredits: readonly Priced[], note: Priced): CreditRoom {
  const same = (p: Priced) => p.currency === null || invoice.currency === null || p.currency === invoice.currency;
  const foreign = [...validatedCredits, note].filter((p) => !same(p));
  if (foreign.length) return { fits: false, foreign };
  const credited = sum(validatedCredits.map((c) => dec(c.amount)));
  const left = dec(invoice.amount).minus(credited);
  return { fits: dec(note.amount).lessThanOrEqualTo(left), credited, left: left.isNegative() ? dec(0) : left };
}

/** A document as the settlement of a credit note judges it. */
export interface CreditSettlementDocument {
  invoicestatus: string;
  invoicetotal: DecimalLike;
  amount_paid: DecimalLike;
  written_off_amount: DecimalLike;
  /** The day it posted on (YYYY-MM-DD). */
  date: string;
}

/**
 * What a credit note settles of the invoice it credits when it is validated (Odoo's reconciliation
 * of a reversal, ERPNext's return against an invoice): the smaller of what the note gives and what
 * is open on the invoice, allocated from the one to the other on the later of their two dates, so
 * nothing is settled before it existed. Only the rest is credit the partner may use elsewhere or be
 * paid back. Null when the invoice has nothing open (paid, written off): the whole note is credit.
 */
export function creditSettlement(note: CreditSettlementDocument, invoice: CreditSettlementDocument): { amount: Dec; date: string } | null {
  if (invoice.invoicestatus !== 'open') return null;
  const open = dec(invoice.invoicetotal).minus(dec(invoice.amount_paid)).minus(dec(invoice.written_off_amount));
  const gives = dec(note.invoicetotal).minus(dec(note.amount_paid)).minus(dec(note.written_off_amount));
  const amount = open.lessThan(gives) ? open : gives;
  if (!amount.greaterThan(0)) return null;
  return { amount, date: note.date > invoice.date ? note.date : invoice.date };
}
