import type { invoicing } from '@bo/contracts';
import { dec, sum, type Dec, type DecimalLike } from '@bo/kernel';
import { isCreditNote } from './credit-note';

/**
 * What validating a document moves in stock for one of its lines (catalog applies it from the
 * `invoicing.invoice.validated` event's `lines`): the line's quantity, unless the line was never
 * checked against the catalog (it may name any product's id) or the document is a credit note that
 * returns no goods (`restock: false`). Stored on the line as `stocked` when it is validated.
 */
export function stockedQuantity(
  doc: { invoicetype: invoicing.InvoiceType; restock: boolean },
  line: { catalog_checked: boolean; quantity: DecimalLike },
): Dec {
  if (!line.catalog_checked) return dec(0);
  if (isCreditNote(doc.invoicetype) && !doc.restock) return dec(0);
  return dec(line.quantity);
}

/** A line as the restock cap judges it: its product (stock is kept per product, variants included) and a quantity. */
export interface StockLine {
  product_id: string;
  quantity: DecimalLike;
}

const quantity = (q: DecimalLike) => dec(q).toFixed();

export interface RestockProblem {
  field: string;
  message: string;
}

/**
 * A credit note that returns goods returns at most what the invoice it credits delivered, per
 * product, less what its earlier credit notes returned. `note`: the note's lines that move stock, in
 * their order (`index` is the line's place on the note, named in the field); `delivered` and
 * `returned`: what the invoice's lines and its validated credit notes' lines stocked. Each line that
 * takes its product past what may still come back is named by its `quantity`.
 */
export function restockProblems(
  invoiceNumber: string,
  note: ReadonlyArray<StockLine & { index: number }>,
  delivered: readonly StockLine[],
  returned: readonly StockLine[],
): RestockProblem[] {
  const total = (lines: readonly StockLine[], product: string) =>
    sum(lines.filter((l) => l.product_id === product).map((l) => dec(l.quantity)));
  const taken = new Map<string, Dec>();
  const problems: RestockProblem[] = [];
  for (const line of note) {
    const out = total(delivered, line.product_id);
    const back = total(returned, line.product_id);
    const before = taken.get(line.product_id) ?? dec(0);
    const after = before.plus(dec(line.quantity));
    taken.set(line.product_id, after);
    if (after.lessThanOrEqualTo(out.minus(back))) continue;
    const left = out.minus(back).minus(before);
    const room = left.isNegative() ? dec(0) : left;
    const field = `line_items.${line.index}.quantity`;
    problems.push({
      field,
      message:
        `${field}: ${quantity(line.quantity)} of product ${line.product_id} would return more than ${invoiceNumber} delivered ` +
        `(${quantity(out)} delivered, ${quantity(back)} returned already, ${quantity(room)} may still come back)`,
    });
  }
  return problems;
}
