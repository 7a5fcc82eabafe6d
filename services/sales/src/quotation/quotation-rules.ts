import { formatDate } from '@bo/kernel';
import type { DocumentParties, OrganizationTaxPolicy } from '@bo/billing';
import { quotationRefusals } from './quotation-refusals';
import { checkCancel, effectiveStatus, type QuotationStatus, type StoredStatus, type Verdict } from './quotation-status';
import type { LineRow, QuotationRow } from './quotation.record';

// The rules of a stored quotation that every handler weighs before it changes one: pure, beside the
// state machine (quotation-status.ts).

/**
 * A stored quotation as a change of it decides on, loaded in one statement (quotation.repository.ts
 * loadQuotation): its row, its lines in id order (when the change needs them), the organization's
 * tax policy and its today.
 */
export interface QuotationState {
  quotation: QuotationRow;
  /** Undefined when the load was not asked for them. */
  lines: LineRow[] | undefined;
  policy: OrganizationTaxPolicy;
  today: string;
}

/**
 * The parties of a quotation as the partners service holds them now (currentParties), asked when it
 * is sent, so that they are frozen with it; null when it is not.
 */
export type PartiesNow = { records: DocumentParties; partnerName: string | null } | null;

/** The state's lines, which the change needs: a load that left them out is a bug of its caller. */
export function loadedLines(state: QuotationState): LineRow[] {
  if (!state.lines) throw new Error(`quotation ${state.quotation.id}: its lines were not loaded for a change that needs them`);
  return state.lines;
}

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
