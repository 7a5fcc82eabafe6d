import type { invoicing } from '@bo/contracts';
import { dec, type Dec } from '@bo/kernel';

/**
 * How a validated document moves stock (docs/design.md "stock follows documents"): a customer invoice
 * and a vendor credit note take goods out; a vendor bill and a customer credit note (a return)
 * bring them in.
 */
export const STOCK_DIRECTION: Record<invoicing.InvoiceType, 1 | -1> = { invoiceout: -1, creditin: -1, invoicein: 1, creditout: 1 };

/** One product's changes per location; `null` is the organization's default location. */
export interface ProductMove {
  productId: number;
  changes: Map<string | null, Dec>;
}

/**
 * Groups a document's lines into one move per product, adding the quantities of lines that name
 * the same product (or its variants: stock is kept per product) and location, ordered by product id
 * (the consumer locks a whole batch's products beforehand, in id order).
 * Invoicing leaves out lines never checked against the catalog (made before lines were); a product
 * id that is no catalog id moves nothing all the same. A credit note made with `restock: false` (a
 * price-only rebate) returns no goods: it moves nothing. Other types always move their goods, and an
 * event from before the field was added (`restock` absent) restocks.
 */
export function documentMoves(
  type: invoicing.InvoiceType,
  lines: ReadonlyArray<invoicing.ValidatedLine>,
  restock: boolean | undefined = true,
): ProductMove[] {
  if (restock === false && (type === 'creditout' || type === 'creditin')) return [];
  const sign = STOCK_DIRECTION[type];
  const byProduct = new Map<number, Map<string | null, Dec>>();
  for (const line of lines) {
    if (!/^[1-9]\d{0,9}$/.test(line.product_id)) continue;
    const productId = Number(line.product_id);
    const changes = byProduct.get(productId) ?? new Map<string | null, Dec>();
    const change = dec(line.quantity).times(sign);
    changes.set(line.location_id, (changes.get(line.location_id) ?? dec(0)).plus(change));
    byProduct.set(productId, changes);
  }
  return [...byProduct.entries()].sort(([a], [b]) => a - b).map(([productId, changes]) => ({ productId, changes }));
}
