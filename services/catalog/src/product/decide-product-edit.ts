import type { catalog } from '@bo/contracts';
import { dec } from '@bo/kernel';
import { categoryRefusals } from '../category/category-refusals';
import { cleanSku, skuKey } from '../sku/sku';
import { carriesStock, stockLevelsProblem, taxDefaultProblem } from './product-rules';
import { toProductRecord, type ProductRow, type ProductView } from './product.record';
import { productRefusals } from './product-refusals';

export type EditProductRequest = catalog.EditProductRequestOf;

/** The columns an edit writes. */
export type ProductChanges = Partial<Record<keyof ProductRow, unknown>>;

/** The category an edit names, as the organization has it: null when it has none of that id. */
export type NamedCategory = { id: number; name: string } | null;

/**
 * The fields an edit changes, decided on the product as it is: the fields given replace its own
 * (empty text clears description, image, unit and barcode; a SKU is trimmed, blank none), a category
 * named must be the organization's (`category`, undefined when the request names none), and the
 * default tax rate and category, and the minimum and maximum stock levels, must agree as the edit
 * leaves them. `movesSku`: the SKU changes its key, so it must be freed and claimed anew.
 */
export function decideProductChanges(
  current: ProductRow,
  req: EditProductRequest,
  category: NamedCategory | undefined,
): { changes: ProductChanges; movesSku: boolean } {
  const changes: ProductChanges = {};
  for (const field of ['name', 'price', 'cost', 'taxable', 'tax_rate', 'type'] as const) {
    if (req[field] !== undefined) changes[field] = req[field];
  }
  for (const field of ['description', 'image', 'uom'] as const) if (req[field] !== undefined) changes[field] = req[field] || null;
  if (req.barcode !== undefined) changes.barcode = req.barcode.trim() || null;
  if (req.category_id === null) changes.category_id = null;
  if (req.category_id) {
    if (!category) throw categoryRefusals.categoryNotFound(req.category_id);
    changes.category_id = category.id;
  }

  if (req.tax_category !== undefined) changes.tax_category = req.tax_category;
  const tax = taxDefaultProblem(req.tax_rate ?? current.tax_rate, req.tax_category === undefined ? current.tax_category : req.tax_category);
  if (tax) throw productRefusals.taxDefault(tax, req.tax_category === undefined ? 'tax_rate' : 'tax_category');

  if (req.min_stock_level !== undefined) changes.min_stock_level = req.min_stock_level;
  if (req.max_stock_level !== undefined) changes.max_stock_level = req.max_stock_level;
  const levels = stockLevelsProblem(
    req.min_stock_level === undefined ? current.min_stock_level : req.min_stock_level,
    req.max_stock_level === undefined ? current.max_stock_level : req.max_stock_level,
  );
  if (levels) throw productRefusals.stockLevels(levels);

  let movesSku = false;
  if (req.sku !== undefined) {
    const sku = cleanSku(req.sku);
    movesSku = skuKey(sku) !== skuKey(current.sku);
    changes.sku = sku;
  }
  return { changes, movesSku };
}

/** Does the edit set the product's stock? That moves stock, which an edit stored alone does not. */
export function editMovesStock(req: Pick<EditProductRequest, 'stock'>): boolean {
  return req.stock !== undefined;
}

/** What an edit decides on, as read (readProductEdit). */
export interface ProductEditState {
  /** The live product with its category's name and its stock, null when the organization has none of that id. */
  product: ProductView | null;
  /** The category the request names (NamedCategory); undefined when it names none. */
  category: NamedCategory | undefined;
}

/** An edit of the product's fields alone, decided: the columns it writes and the record it leaves. */
export interface ProductEdit {
  productId: number;
  changes: ProductChanges;
  /** The product as the edit leaves it, at its next version; its `updated_at` is the one read, which the store's time replaces. */
  record: catalog.ProductRecord;
}

/**
 * Decides an edit that changes the product's fields and nothing else (decideProductChanges): a
 * product that is not there is not found, and one made stockless must hold no stock. Null for an
 * edit that moves the product's SKU or its stock, which goes the usual way.
 */
export function decideProductEdit(state: ProductEditState, req: EditProductRequest): ProductEdit | null {
  const product = state.product;
  if (!product) throw productRefusals.productNotFound(req.product_id);
  if (editMovesStock(req)) return null;
  const { changes, movesSku } = decideProductChanges(product, req, state.category);
  if (movesSku) return null;
  const edited = { ...product, ...changes, version: product.version + 1 } as ProductView;
  if (!carriesStock(edited.type) && !dec(product.stock).isZero()) throw productRefusals.stockStillHeld(product.id, edited.type);
  if ('category_id' in changes) edited.category_name = changes.category_id === null ? null : (state.category?.name ?? null);
  return { productId: product.id, changes, record: toProductRecord(edited) };
}
