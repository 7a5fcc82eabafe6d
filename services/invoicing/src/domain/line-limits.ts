import { computeLine, type LineInput } from '@bo/kernel';

/**
 * A line total must stay below 10^12, the bound of every money field. Quantity and price are each
 * bounded alone, but their product is not; without this a large order would overflow the
 * numeric(18,2) columns (a 500 instead of a 400). 500 lines under the bound always fit a document.
 */
export const MAX_LINE_TOTAL = '1000000000000';

/** Why a line's amounts are too large to book, or null when they fit. */
export function lineTotalProblem(line: LineInput): string | null {
  const { total } = computeLine(line);
  if (total.abs().lessThan(MAX_LINE_TOTAL)) return null;
  return `quantity x price gives a line total of ${total.toFixed(2)}; a line total must be less than ${MAX_LINE_TOTAL}`;
}
