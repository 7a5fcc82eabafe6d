import { carriesStock } from '../product/product-rules';
import type { StockDocument } from '../stock/stock.ledger';
import type { ProductMove } from './document-moves';

/** A validated document as the stock consumer reads it: its organization, the document and its moves per product. */
export interface DocumentToMove {
  eventId: string;
  orgId: number;
  document: StockDocument;
  moves: ProductMove[];
}

/** What the documents of a batch find (loadDocumentStock): the products they name that exist, and the moves made of them already. */
export interface DocumentStockState {
  products: ReadonlyArray<{ org_id: number; id: number; type: string }>;
  moved: ReadonlyArray<{ org_id: number; document_id: number; product_id: number }>;
}

/** A product a document names and moves no stock of, and why. */
export interface Unmoved {
  eventId: string;
  document: StockDocument;
  productId: number;
  why: 'moved already' | 'unknown product';
}

/**
 * Decides which documents of a batch move stock: a product moved by its document already moves no
 * more (the ledger's natural key), a product the organization does not have moves nothing, and a
 * service product carries no stock. `moves` is true when some document has an inventory product
 * to move; the rest is what the consumer reports.
 */
export function decideDocumentStock(
  documents: readonly DocumentToMove[],
  state: DocumentStockState,
): { moves: boolean; unmoved: Unmoved[] } {
  const products = new Map(state.products.map((p) => [`${p.org_id}:${p.id}`, p]));
  const moved = new Set(state.moved.map((m) => `${m.org_id}:${m.document_id}:${m.product_id}`));
  const unmoved: Unmoved[] = [];
  let moves = false;
  for (const { eventId, orgId, document, moves: productMoves } of documents) {
    for (const { productId } of productMoves) {
      const product = products.get(`${orgId}:${productId}`);
      if (moved.has(`${orgId}:${document.id}:${productId}`)) unmoved.push({ eventId, document, productId, why: 'moved already' });
      else if (!product) unmoved.push({ eventId, document, productId, why: 'unknown product' });
      else if (carriesStock(product.type)) moves = true;
    }
  }
  return { moves, unmoved };
}
