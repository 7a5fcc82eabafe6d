import type { catalog } from '@bo/contracts';
import { formatDateTime, toNumber } from '@bo/kernel';

export interface ProductRow {
  id: number;
  org_id: number;
  name: string;
  description: string | null;
  price: string;
  cost: string;
  category_id: number | null;
  sku: string | null;
  barcode: string | null;
  image: string | null;
  taxable: boolean;
  tax_rate: string;
  tax_category: string | null;
  type: catalog.ProductRecord['type'];
  uom: string | null;
  min_stock_level: string | null;
  max_stock_level: string | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
  version: number;
}

/** The fields a new product is stored with. */
export type NewProduct = Omit<ProductRow, 'id' | 'org_id' | 'version' | 'deleted_at' | 'created_at' | 'updated_at'>;

/** A product row read with its category's name and its stock summed over locations. */
export interface ProductView extends ProductRow {
  category_name: string | null;
  stock: string;
}

export function toProductRecord(row: ProductView): catalog.ProductRecord {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    price: toNumber(row.price),
    cost: toNumber(row.cost),
    category: row.category_name,
    category_id: row.category_id === null ? null : String(row.category_id),
    stock: toNumber(row.stock),
    sku: row.sku,
    barcode: row.barcode,
    image: row.image,
    taxable: row.taxable,
    tax_rate: toNumber(row.tax_rate),
    tax_category: row.tax_category,
    type: row.type,
    uom: row.uom,
    min_stock_level: row.min_stock_level === null ? null : toNumber(row.min_stock_level),
    max_stock_level: row.max_stock_level === null ? null : toNumber(row.max_stock_level),
    created_at: formatDateTime(row.created_at) as string,
    updated_at: formatDateTime(row.updated_at) as string,
    version: row.version,
  };
}
