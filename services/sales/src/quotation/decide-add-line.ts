import { sales, type ReplyOf } from '@bo/contracts';
import { toNumber } from '@bo/kernel';
import { taxContextFor, toBreakdownRecord, type TaxContext } from '@bo/billing';
import { documentTooLarge, type PricedLine } from './quotation-lines';
import { checkAddLine } from './quotation-status';
import { conversionUnfinished, enforce, loadedLines, statusOf, type QuotationState } from './quotation-rules';
import { lineRow, toLineRecord, type LineRow, type QuotationRow } from './quotation.record';
import { quotationRefusals } from './quotation-refusals';
import { changedLineAmounts, computeQuotation, quotationTaxRow, type LineAmountsChange } from './taxes';

export type AddLineReply = ReplyOf<typeof sales.addQuotationLine>;

/** What adding a line decides on: the quotation as loaded with its lines, and the id its new line takes (drawn by the load). */
export interface AddLineState extends QuotationState {
  lineId: number;
}

/**
 * A line added, as decided: the new line's row (every column it is stored with, its id drawn), the
 * stored lines whose amounts move, the quotation's columns that change, and the reply, which tells
 * exactly these.
 */
export interface LineAdded {
  quotationId: number;
  line: LineRow;
  changedLines: LineAmountsChange[];
  header: Partial<QuotationRow>;
  reply: AddLineReply;
}

/**
 * Decides a line added to a quotation: only a draft or sent one takes lines, and not while a
 * conversion is unfinished; it holds at most MAX_QUOTATION_LINES. The whole quotation is computed
 * again, since its VAT is rounded per category, not per line: a draft with the organization's
 * policy now, a sent one with the policy it was sent with. A total grown too large to store is
 * refused. Pure: a refusal is thrown, by name.
 */
export function decideAddLine(state: AddLineState, line: PricedLine, actor: string | null): LineAdded {
  const q = state.quotation;
  enforce(checkAddLine(statusOf(q, state.today), conversionUnfinished(q)), q);
  if (q.line_count >= sales.MAX_QUOTATION_LINES) throw quotationRefusals.tooManyLines(q.quotation_number, sales.MAX_QUOTATION_LINES);
  const existing = loadedLines(state);
  const context: TaxContext =
    q.status === 'draft' || q.rounding === null
      ? taxContextFor(state.policy, q.currency)
      : { rounding: q.rounding, cash_rounding: q.cash_rounding, parties: null };
  // The added line's refusals name its own fields (`tax_rate`), as the request gave them.
  const added = `line_items.${existing.length}.`;
  const doc = computeQuotation(q, [...existing, line], context, (f) => (f.startsWith(added) ? f.slice(added.length) : f));
  const totals = doc.totals;
  if (
    documentTooLarge({
      subtotal: totals.tax_exclusive_amount,
      tax_amount: totals.tax_total,
      discount_total: totals.line_net_total,
      total: totals.payable_amount,
    })
  )
    throw quotationRefusals.lineMakesTotalTooLarge();
  const stored: LineRow = { id: state.lineId, ...lineRow(q.org_id, q.id, line, doc.lines[existing.length]!, doc.minor_unit) };
  const columns = quotationTaxRow(doc, q, context);
  return {
    quotationId: q.id,
    line: stored,
    changedLines: changedLineAmounts(existing, doc),
    header: { ...columns, line_count: q.line_count + 1, updated_by: actor },
    reply: {
      message: 'Line added successfully',
      line_item: toLineRecord(stored),
      totals: {
        subtotal: toNumber(columns.subtotal),
        tax_amount: toNumber(columns.tax_amount),
        discount_total: toNumber(columns.discount_total),
        quotation_total: toNumber(columns.total),
        vat_total: toNumber(columns.vat_total),
        rounding_amount: toNumber(columns.rounding_amount),
        tax_breakdown: columns.tax_breakdown.map(toBreakdownRecord),
      },
    },
  };
}
