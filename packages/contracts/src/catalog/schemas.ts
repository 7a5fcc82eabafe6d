import { z } from 'zod';
import {
  atMost,
  baseRequest,
  intId,
  money,
  notBlank,
  optionalText,
  pageRequest,
  paginationSchema,
  percentage,
  plainString,
  quantity,
  searchText,
  stringId,
  text,
  type TextKind,
} from '../fields';
import { taxCategoryField } from '../lines';

export const productTypes = ['inventory', 'service', 'consumable'] as const;

/** Only `inventory` products are stocked; services and consumables are never counted (nor returned to stock). */
export function carriesStock(type: string): boolean {
  return type === 'inventory';
}
export const productTypeField = z.enum(productTypes);

/** Sort keys of the product list; the default is newest first. */
export const productSortKeys = ['created_at', 'updated_at', 'name', 'sku', 'price', 'cost', 'stock', 'id'] as const;

const name = text(200).trim().check(notBlank());

/**
 * An optional text that `null` clears: null arrives as "", which every handler reads as "none", so
 * `{"sku": null}` on an edit removes the SKU just as `{"category_id": null}` removes the category.
 */
const clearableText = (max: number, kind: TextKind = 'line') =>
  z
    .union([text(max, kind), z.null()])
    .optional()
    .transform((v) => (v === null ? '' : v));

/** Writable product fields (spec 2.1); create makes `name` required. */
const productFields = {
  name,
  description: clearableText(5000, 'multiline'),
  price: money({ min: 0 }).optional(),
  cost: money({ min: 0 }).optional(),
  // null on edit clears the category
  category_id: stringId.nullable().optional(),
  sku: clearableText(100),
  barcode: clearableText(100),
  image: clearableText(2000),
  taxable: z.boolean().optional(),
  tax_rate: percentage().optional(),
  /** The VAT category a document line of the product takes when it names no rate; null on edit clears it (the rate's S or Z then). */
  tax_category: taxCategoryField.nullable().optional(),
  type: productTypeField.optional(),
  uom: clearableText(50),
  stock: quantity({ min: 0 }).optional(),
  min_stock_level: quantity({ min: 0 }).nullable().optional(),
  max_stock_level: quantity({ min: 0 }).nullable().optional(),
};

export const listProductsRequest = z.object({
  ...baseRequest,
  search: searchText(),
  category_id: stringId.optional(),
  type: productTypeField.optional(),
  sort_by: z.enum(productSortKeys).optional(),
  sort_order: z.enum(['asc', 'desc']).optional(),
  ...pageRequest,
});

export const createProductRequest = z.object({
  ...baseRequest,
  ...productFields,
  warehouse_id: stringId.optional(),
  location_id: stringId.optional(),
});

export const editProductRequest = z.object({
  ...baseRequest,
  product_id: intId,
  ...productFields,
  name: name.optional(),
});

export const deleteProductRequest = z.object({ ...baseRequest, product_id: intId, delete: z.literal(true) });

export const createVariantRequest = z.object({
  ...baseRequest,
  action: z.literal('create_variant'),
  parent_product_id: intId,
  variant_name: name,
  options: z.record(plainString().trim().check(notBlank('option names must not be empty'), atMost(100)), text(200)).optional(),
  price: money({ min: 0 }).optional(),
  cost: money({ min: 0 }).optional(),
  sku: clearableText(100),
  barcode: clearableText(100),
  /** The VAT rate and category a line of the variant takes when it names no rate; absent: the product's. */
  tax_rate: percentage().optional(),
  tax_category: taxCategoryField.optional(),
});

const categoryFields = {
  name,
  code: clearableText(50),
  parent_id: stringId.nullable().optional(),
  taxable: z.boolean().optional(),
  default_account: clearableText(100),
};

export const createCategoryRequest = z.object({ ...baseRequest, ...categoryFields });
export const editCategoryRequest = z.object({ ...baseRequest, category_id: stringId, ...categoryFields, name: name.optional() });

/** At most this many ids of each kind per lookup: a document's lines (500) fit in one call. */
export const MAX_LOOKUP_IDS = 500;
const lookupIds = <T extends z.ZodType>(of: T) => z.array(of).max(MAX_LOOKUP_IDS, `must have at most ${MAX_LOOKUP_IDS} ids`).optional();

/**
 * Internal lookup of many catalog records at once (quotation and invoice lines): only live records
 * of the organization come back; the caller names what is missing. `default_location` adds the
 * organization's default location.
 */
export const lookupRequest = z.object({
  org_id: baseRequest.org_id,
  product_ids: lookupIds(z.number().int().positive()),
  variant_ids: lookupIds(z.number().int().positive()),
  location_ids: lookupIds(stringId),
});

export const stockDetailsRequest = z.object({ ...baseRequest, action: z.literal('stock_details'), product_id: intId });

export const adjustStockRequest = z.object({
  ...baseRequest,
  action: z.literal('stock_adjustment'),
  product_id: intId,
  qty_locations: z
    .record(plainString().trim().check(notBlank('location ids must not be empty'), atMost(64)), quantity({ min: 0 }))
    .refine((v) => Object.keys(v).length > 0, 'must name at least one location')
    .refine((v) => Object.keys(v).length <= 200, 'may name at most 200 locations')
    .meta({ minProperties: 1, maxProperties: 200 }),
  adjustment_type: optionalText(50),
  reference: optionalText(200),
  notes: optionalText(2000, 'multiline'),
});

export const stockMovesRequest = z.object({ ...baseRequest, action: z.literal('stock_moves'), product_id: intId, ...pageRequest });
export const listLocationsRequest = z.object({ ...baseRequest, action: z.literal('list_locations') });
export const createWarehouseRequest = z.object({
  ...baseRequest,
  action: z.literal('create_warehouse'),
  name,
  address: optionalText(1000, 'multiline'),
});
export const createLocationRequest = z.object({ ...baseRequest, action: z.literal('create_location'), warehouse_id: stringId, name });

// ---- records and replies ----

export const productRecord = z.object({
  id: z.number().int(),
  name: z.string(),
  description: z.string().nullable(),
  price: z.number(),
  cost: z.number(),
  /** The category's name (spec 2.1). */
  category: z.string().nullable(),
  category_id: z.string().nullable(),
  /** Sum over every location. */
  stock: z.number(),
  sku: z.string().nullable(),
  barcode: z.string().nullable(),
  image: z.string().nullable(),
  taxable: z.boolean(),
  tax_rate: z.number(),
  /** The VAT category of the product's default; null: S when tax_rate is above 0, Z when it is 0. */
  tax_category: z.string().nullable(),
  type: productTypeField,
  uom: z.string().nullable(),
  min_stock_level: z.number().nullable(),
  max_stock_level: z.number().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  version: z
    .number()
    .int()
    .min(1)
    .describe("The record's version: 1 when created, one more per edit and at its delete; the highest is the newest state"),
});
export type ProductRecord = z.infer<typeof productRecord>;

export const variantRecord = z.object({
  id: z.number().int(),
  parent_product_id: z.number().int(),
  variant_name: z.string(),
  options: z.record(z.string(), z.string()),
  price: z.number(),
  cost: z.number(),
  sku: z.string().nullable(),
  barcode: z.string().nullable(),
  /** The variant's own default VAT rate and category; null: the product's. */
  tax_rate: z.number().nullable(),
  tax_category: z.string().nullable(),
  created_at: z.string(),
});
export type VariantRecord = z.infer<typeof variantRecord>;

export const categoryRecord = z.object({
  id: z.string(),
  name: z.string(),
  code: z.string().nullable(),
  parent_id: z.string().nullable(),
  taxable: z.boolean(),
  default_account: z.string().nullable(),
});
export type CategoryRecord = z.infer<typeof categoryRecord>;

export const locationRow = z.object({
  warehouse_id: z.string(),
  warehouse_name: z.string(),
  location_id: z.string(),
  location_name: z.string(),
  is_default: z.boolean(),
});
export type LocationRow = z.infer<typeof locationRow>;

export const warehouseRecord = z.object({
  id: z.string(),
  name: z.string(),
  address: z.string().nullable(),
  is_default: z.boolean(),
  created_at: z.string(),
});

export const stockDetailRow = z.object({
  warehouse_id: z.string(),
  warehouse_name: z.string(),
  location_id: z.string(),
  location_name: z.string(),
  stock_quantity: z.number(),
  /** Validated documents may take a location below zero (adjustments never do); this says so. */
  negative: z.boolean(),
});

export const adjustmentDetail = z.object({
  location_id: z.string(),
  previous_stock: z.number(),
  new_stock: z.number(),
  change: z.number(),
});

export const stockMoveSources = ['initial', 'product_edit', 'adjustment', 'document'] as const;

/** The validated document a `document` move comes from; null for every other source. */
export const stockMoveDocument = z.object({ type: z.string(), id: z.number().int(), number: z.string() }).nullable();

export const stockMoveRecord = z.object({
  id: z.string(),
  product_id: z.number().int(),
  source: z.enum(stockMoveSources),
  adjustment_type: z.string(),
  reference: z.string().nullable(),
  notes: z.string().nullable(),
  created_by: z.string().nullable(),
  created_at: z.string(),
  document: stockMoveDocument,
  /** Net change over every location of the move. */
  total_change: z.number(),
  lines: z.array(adjustmentDetail.extend({ location_name: z.string(), warehouse_id: z.string(), warehouse_name: z.string() })),
});

export const messageReply = z.object({ message: z.string() });
export const productReply = z.object({ message: z.string(), product: productRecord });
export const listProductsReply = z.object({ message: z.string(), products: z.array(productRecord), pagination: paginationSchema });
export const variantReply = z.object({ message: z.string(), variant: variantRecord });
export const categoryReply = z.object({ message: z.string(), category: categoryRecord });
/** The edit answer omits parent_id, as the spec shows it. */
export const editCategoryReply = z.object({ message: z.string(), category: categoryRecord.omit({ parent_id: true }) });
export const stockDetailsReply = z.object({
  message: z.string(),
  product_id: z.number().int(),
  product_name: z.string(),
  current_stock: z.number(),
  stock_details: z.array(stockDetailRow),
  min_stock_level: z.number().nullable(),
  max_stock_level: z.number().nullable(),
  last_stock_check: z.string().nullable(),
  /** The latest stock moves of the product (newest first), each with its source document if any. */
  recent_moves: z.array(stockMoveRecord),
});
export const adjustStockReply = z.object({ message: z.string(), stock_move_id: z.string(), details: z.array(adjustmentDetail) });
export const stockMovesReply = z.object({
  message: z.string(),
  product_id: z.number().int(),
  stock_moves: z.array(stockMoveRecord),
  pagination: paginationSchema,
});
export const listLocationsReply = z.object({ message: z.string(), locations: z.array(locationRow) });
export const createWarehouseReply = z.object({ message: z.string(), warehouse: warehouseRecord, location: locationRow });
export const createLocationReply = z.object({ message: z.string(), location: locationRow });

/** What a document line keeps of a product: enough for its snapshot and for stock to follow it. */
export const lookupProduct = productRecord.pick({
  id: true,
  name: true,
  description: true,
  price: true,
  sku: true,
  uom: true,
  type: true,
  tax_rate: true,
  tax_category: true,
});
export const lookupReply = z.object({
  message: z.string(),
  products: z.array(lookupProduct),
  variants: z.array(
    variantRecord.pick({
      id: true,
      parent_product_id: true,
      variant_name: true,
      price: true,
      sku: true,
      tax_rate: true,
      tax_category: true,
    }),
  ),
  locations: z.array(locationRow),
});
export type LookupReply = z.infer<typeof lookupReply>;

export type EditProductRequestOf = z.output<typeof editProductRequest>;
