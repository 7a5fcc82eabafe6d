import { amountText, computeLine, sumLines, type LineAmounts as ExactLineAmounts } from '@bo/kernel';

/**
 * The floor's pure parts: the list reply around the records PostgreSQL wrote, as the partners service answers it, and a
 * line's amounts as an invoice stores them. No database, no broker: unit-tested beside.
 */

/**
 * The list reply's body, as the partners service answers it: the records as PostgreSQL wrote them
 * (sql.LIST_PARTNERS), then the first page's pagination.
 */
export function partnerPageReply(records: string, total: number, pageSize: number): string {
  const totalPages = Math.ceil(total / pageSize);
  const message = records === '[]' ? 'No partners found' : 'Partners retrieved successfully';
  const pagination = {
    page_number: 1,
    page_size: pageSize,
    total_items: total,
    total_pages: totalPages,
    has_next: totalPages > 1,
    has_previous: false,
  };
  return `{"message":${JSON.stringify(message)},"partners":${records},"pagination":${JSON.stringify(pagination)}}`;
}

/** A requested invoice line (the fields the bench's lines carry). */
export interface LineInput {
  product_id: string | number;
  product_name?: string;
  quantity: number;
  price: number;
  discount?: number;
  tax_rate?: number;
  tax_included?: boolean;
}

export interface LineAmounts {
  subtotal: number;
  tax: number;
  total: number;
}

const cents = (v: number) => Math.round(v * 100) / 100;

/** A line's amounts: quantity × price less its discount (percent); tax added, or taken out of a tax-included price. */
export function lineAmounts(line: LineInput): LineAmounts {
  const gross = cents(line.quantity * line.price * (1 - (line.discount ?? 0) / 100));
  const rate = (line.tax_rate ?? 0) / 100;
  if (line.tax_included) {
    const subtotal = cents(gross / (1 + rate));
    return { subtotal, tax: cents(gross - subtotal), total: gross };
  }
  const tax = cents(gross * rate);
  return { subtotal: gross, tax, total: cents(gross + tax) };
}

/** The amounts of every line and of the whole document. */
export function documentAmounts(lines: readonly LineInput[]): { lines: LineAmounts[]; subtotal: number; tax: number; total: number } {
  const amounts = lines.map(lineAmounts);
  const sum = (k: keyof LineAmounts) => cents(amounts.reduce((s, a) => s + a[k], 0));
  return { lines: amounts, subtotal: sum('subtotal'), tax: sum('tax'), total: sum('total') };
}

/**
 * The same amounts in exact decimals, rounded half-up per line as the kernel's `line` policy does,
 * as text: what the bar requires of money, for the floor with its requirements (`required`).
 */
export function exactDocumentAmounts(lines: readonly LineInput[]): {
  lines: Array<{ subtotal: string; tax: string; total: string }>;
  subtotal: string;
  tax: string;
  total: string;
} {
  const amounts = lines.map((l) =>
    computeLine({
      quantity: l.quantity,
      price: l.price,
      discount: l.discount ?? 0,
      tax_rate: l.tax_rate ?? 0,
      tax_included: l.tax_included ?? false,
    }),
  );
  const text = (a: ExactLineAmounts) => ({ subtotal: amountText(a.subtotal), tax: amountText(a.tax_amount), total: amountText(a.total) });
  return { lines: amounts.map(text), ...text(sumLines(amounts)) };
}
