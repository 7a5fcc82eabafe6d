import { formatDate } from '@bo/kernel';
import { quotationRefusals } from './quotation-refusals';
import { checkCancel, effectiveStatus, type QuotationStatus, type StoredStatus, type Verdict } from './quotation-status';
import type { QuotationRow } from './quotation.record';

// The rules of a stored quotation that every handler weighs before it changes one: pure, beside the
// state machine (quotation-status.ts).

/** The status a reader sees today: a draft or sent quotation past its validity has expired. */
export function statusOf(row: QuotationRow, today: string): QuotationStatus {
  return effectiveStatus(row.status, formatDate(row.valid_until) as string, today);
}

/** Stored statuses a conversion starts from; a frozen quotation keeps one of them until it ends. */
export const CONVERTIBLE: readonly StoredStatus[] = ['draft', 'sent', 'accepted'];

/**
 * A conversion began (the quotation is frozen) and has not ended: invoicing may have made the
 * invoice, so only that conversion completing, or invoicing refusing it, changes the quotation.
 * An older quotation converted or cancelled before conversions froze it may keep the mark: ended.
 */
export function conversionUnfinished(row: QuotationRow): boolean {
  return row.conversion_attempted_at !== null && CONVERTIBLE.includes(row.status);
}

/** Turns a refusal of the state machine into a 400 that names the quotation and its current status. */
export function enforce(verdict: Verdict, row: QuotationRow): void {
  if (verdict.ok) return;
  const refusal = quotationRefusals.refusedInStatus(row.quotation_number, verdict.message);
  // Not the key's settled answer: once the conversion ends, the same request may go through or be refused otherwise.
  throw verdict.untilConversionEnds ? refusal.asTransient() : refusal;
}

/**
 * A cancel of `q` as it stands today, decided: its reply, or the refusal of its status. A quotation
 * frozen by a conversion under way is refused until that conversion ends: it may hold an invoice.
 */
export function decideCancel(q: QuotationRow, today: string): { message: string } {
  enforce(checkCancel(statusOf(q, today), conversionUnfinished(q)), q);
  return { message: `Quotation ${q.quotation_number} cancelled successfully` };
}
