import { formatDate } from '@bo/kernel';
import { AppError, invalidState, type Knex } from '@bo/runtime';
import type { Verdict } from './quotation-status';
import { effectiveStatus, type QuotationStatus, type StoredStatus } from './quotation-status';
import type { LineRow, QuotationRow } from './quotation.record';

/** A quotation of the organization, optionally locked for update; another org's quotation is not found. */
export async function findQuotation(db: Knex, orgId: number, id: number, opts: { lock?: boolean } = {}): Promise<QuotationRow> {
  const query = db<QuotationRow>('quotations').where({ org_id: orgId, id }).first();
  const row = await (opts.lock ? query.forUpdate() : query);
  if (!row) {
    const message = `Quotation ${id} not found`;
    throw new AppError(400, 'not_found', message, [{ field: 'quotation_id', message }]);
  }
  return row;
}

export async function linesOf(db: Knex, quotationId: number): Promise<LineRow[]> {
  return db<LineRow>('quotation_lines').where({ quotation_id: quotationId }).orderBy('id');
}

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
  const refusal = invalidState(`Quotation ${row.quotation_number}: ${verdict.message}`);
  // Not the key's settled answer: once the conversion ends, the same request may go through or be refused otherwise.
  throw verdict.untilConversionEnds ? refusal.asTransient() : refusal;
}

/** SQL for the status a reader sees (one binding: today): draft and sent quotations past valid_until read as expired. */
export const EFFECTIVE_STATUS_SQL = `(case when q.status in ('draft','sent') and q.valid_until < ?::date then 'expired' else q.status end)`;
