import type { catalog, RequestOf } from '@bo/contracts';
import { dec } from '@bo/kernel';
import { categoryRefusals } from '../category/category-refusals';
import { parseStringId } from '../ids';
import { cleanSku } from '../sku/sku';
import { carriesStock, stockLevelsProblem, taxDefaultProblem } from './product-rules';
import { toProductRecord, type NewProduct } from './product.record';
import { productRefusals } from './product-refusals';

export type CreateProductRequest = RequestOf<typeof catalog.createProduct>;

/** A new product, decided from the request. */
export interface NewProductPlan {
  /** Its columns but its category. */
  product: Omit<NewProduct, 'category_id'>;
  /** The category the request names (by its id as given), null for none: the store finds it, or answers it not found. */
  category: string | null;
  /** The stock it starts with (none for zero), placed where the request says (resolvePlacement). */
  initialStock: string | null;
}

/**
 * Decides a new product from the request: an inventory product unless told otherwise; stock only for
 * a product that carries it; minimum and maximum stock levels, and the default tax rate and
 * category, that agree; blank texts none, a SKU trimmed. That its category is the organization's and
 * that no article has its SKU are checked where it is stored.
 */
export function decideNewProduct(req: CreateProductRequest): NewProductPlan {
  const type = req.type ?? 'inventory';
  const initialStock = req.stock !== undefined && !dec(req.stock).isZero() ? req.stock : null;
  if (initialStock !== null && !carriesStock(type)) throw productRefusals.stockOnStocklessProduct(type);
  const levels = stockLevelsProblem(req.min_stock_level, req.max_stock_level);
  if (levels) throw productRefusals.stockLevels(levels);
  const tax = taxDefaultProblem(req.tax_rate ?? '0', req.tax_category);
  if (tax) throw productRefusals.taxDefault(tax, 'tax_category');
  return {
    product: {
      name: req.name,
      description: req.description || null,
      price: req.price ?? '0',
      cost: req.cost ?? '0',
      sku: cleanSku(req.sku),
      barcode: req.barcode?.trim() || null,
      image: req.image || null,
      taxable: req.taxable ?? true,
      tax_rate: req.tax_rate ?? '0',
      tax_category: req.tax_category ?? null,
      type,
      uom: req.uom || null,
      min_stock_level: req.min_stock_level ?? null,
      max_stock_level: req.max_stock_level ?? null,
    },
    category: req.category_id || null,
    initialStock,
  };
}

/**
 * A new product stored alone (one statement, no location read): one with no stock to place and no
 * location or warehouse named (those are read, and placed at), its category named by its id. Null
 * for one that goes the usual way.
 */
export function decideNewProductAlone(req: CreateProductRequest): NewProduct | null {
  const plan = decideNewProduct(req);
  if (plan.initialStock !== null || req.location_id !== undefined || req.warehouse_id !== undefined) return null;
  const categoryId = plan.category === null ? null : parseStringId(plan.category);
  if (plan.category !== null && categoryId === null) throw categoryRefusals.categoryNotFound(plan.category);
  return { ...plan.product, category_id: categoryId };
}

/** The record of a new product as stored: its id, its category's name and its times as the store made them, no stock, version 1. */
export function newProductRecord(
  product: NewProduct,
  stored: { id: number; categoryName: string | null; createdAt: string; updatedAt: string },
): catalog.ProductRecord {
  const at = new Date(0);
  const record = toProductRecord({
    ...product,
    id: stored.id,
    org_id: 0,
    category_name: stored.categoryName,
    stock: '0',
    created_at: at,
    updated_at: at,
    deleted_at: null,
    version: 1,
  });
  return { ...record, created_at: stored.createdAt, updated_at: stored.updatedAt };
}
