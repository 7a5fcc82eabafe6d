import type { catalog } from '@bo/contracts';
import { toProductRecord, type ProductView } from './product.record';
import { productRefusals } from './product-refusals';

/** What deleting a product decides on, as read (readProductDeletion, lockAndReadProductDeletion). */
export interface DeletionState {
  /** The live product with its category's name and its stock, null when the organization has none of that id. */
  product: ProductView | null;
  /** The ids of its live variants, which go with it. */
  variantIds: readonly number[];
}

/** A product's delete, decided: what it marks deleted and frees, and what its event tells. */
export interface ProductDeletion {
  productId: number;
  /** Its live variants: deleted with it, their SKUs freed with its own. */
  variantIds: readonly number[];
  /** The product's record as it was, at the version its delete makes: the `catalog.product.deleted` event's data. */
  record: catalog.ProductRecord;
}

/**
 * Decides a product's delete (a soft one): the product must be live; it and its live variants leave
 * lists and lookups and free their SKUs, while stock quantities and moves stay as history. Its
 * version goes up by one, which its event's record carries.
 */
export function decideProductDeletion(state: DeletionState, productId: number): ProductDeletion {
  const product = state.product;
  if (!product) throw productRefusals.productNotFound(productId);
  return { productId: product.id, variantIds: state.variantIds, record: { ...toProductRecord(product), version: product.version + 1 } };
}
