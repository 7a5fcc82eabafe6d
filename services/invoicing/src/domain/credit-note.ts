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

export interface CreditRoom {
  fits: boolean;
  /** What the validated credit notes already credit. */
  credited: Dec;
  /** What may still be credited before this note: the invoice total less what is credited. */
  left: Dec;
}

/**
 * Any number of credit notes may credit one invoice; together the validated ones never credit more
 * than its total. Exact decimals, to the cent.
 */
export function creditRoom(invoiceTotal: DecimalLike, validatedCredits: readonly DecimalLike[], noteTotal: DecimalLike): CreditRoom {
  const credited = sum(validatedCredits.map((c) => dec(c)));
  const left = dec(invoiceTotal).minus(credited);
  return { fits: dec(noteTotal).lessThanOrEqualTo(left), credited, left: left.isNegative() ? dec(0) : left };
}
