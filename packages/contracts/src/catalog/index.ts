import { z } from 'zod';
import { baseRequest, intId, money, optionalText, pageRequest, quantity, stringId, text } from '../fields';
import { defineEvent } from '../events';
import { defineOperation } from '../operation';

// First draft of the catalog contracts (spec 2.1-2.4, 4.1); the catalog service refines them.
const loose = z.object({ message: z.string() }).loose();

export const productTypes = ['inventory', 'service', 'consumable'] as const;

const productFields = {
  name: text(200).trim().min(1, 'must not be empty'),
  description: optionalText(5000),
  price: money({ min: 0 }).optional(),
  cost: money({ min: 0 }).optional(),
  category_id: stringId.nullable().optional(),
  sku: optionalText(100),
  barcode: optionalText(100),
  image: optionalText(2000),
  taxable: z.boolean().optional(),
  tax_rate: money({ min: 0 }).optional(),
  type: z.enum(productTypes).optional(),
  uom: optionalText(50),
  stock: quantity({ min: 0 }).optional(),
  min_stock_level: quantity({ min: 0 }).optional(),
  max_stock_level: quantity({ min: 0 }).optional(),
};

export const listProducts = defineOperation({
  name: 'catalog.product.list', service: 'catalog', summary: 'List products with stock summed over locations',
  paths: ['/inventory/getproducts'], select: { default: true }, write: false,
  request: z.object({ ...baseRequest, search: z.string().max(200).optional(), category_id: stringId.optional(), type: z.enum(productTypes).optional(), sort_by: z.string().optional(), sort_order: z.enum(['asc', 'desc']).optional(), ...pageRequest }),
  reply: loose,
});
export const createProduct = defineOperation({
  name: 'catalog.product.create', service: 'catalog', summary: 'Create a product, placing its initial stock',
  paths: ['/inventory/editproduct'], select: { default: true }, write: true,
  request: z.object({ ...baseRequest, ...productFields, warehouse_id: stringId.optional(), location_id: stringId.optional() }),
  reply: loose,
});
export const editProduct = defineOperation({
  name: 'catalog.product.edit', service: 'catalog', summary: 'Edit a product',
  paths: ['/inventory/editproduct'], select: { present: 'product_id' }, write: true,
  request: z.object({ ...baseRequest, product_id: intId, ...productFields, name: productFields.name.optional() }),
  reply: loose,
});
export const deleteProduct = defineOperation({
  name: 'catalog.product.delete', service: 'catalog', summary: 'Soft-delete a product',
  paths: ['/inventory/editproduct'], select: { flag: 'delete' }, write: true,
  request: z.object({ ...baseRequest, product_id: intId, delete: z.literal(true) }),
  reply: loose,
});
export const createVariant = defineOperation({
  name: 'catalog.variant.create', service: 'catalog', summary: 'Create a variant of a product',
  paths: ['/inventory/editproduct'], select: { action: 'create_variant' }, write: true,
  request: z.object({ ...baseRequest, action: z.literal('create_variant'), parent_product_id: intId, variant_name: text(200).trim().min(1), options: z.record(z.string(), z.string()).optional(), price: money({ min: 0 }).optional(), cost: money({ min: 0 }).optional(), sku: optionalText(100), barcode: optionalText(100) }),
  reply: loose,
});
const categoryFields = { name: text(200).trim().min(1), code: optionalText(50), parent_id: stringId.nullable().optional(), taxable: z.boolean().optional(), default_account: optionalText(100) };
export const createCategory = defineOperation({
  name: 'catalog.category.create', service: 'catalog', summary: 'Create a product category',
  paths: ['/inventory/categories'], select: { default: true }, write: true,
  request: z.object({ ...baseRequest, ...categoryFields }),
  reply: loose,
});
export const editCategory = defineOperation({
  name: 'catalog.category.edit', service: 'catalog', summary: 'Edit a product category',
  paths: ['/inventory/categories'], select: { present: 'category_id' }, write: true,
  request: z.object({ ...baseRequest, category_id: stringId, ...categoryFields, name: categoryFields.name.optional() }),
  reply: loose,
});
export const stockDetails = defineOperation({
  name: 'catalog.stock.details', service: 'catalog', summary: 'Stock of a product per location',
  paths: ['/inventory/ops/getdata'], select: { action: 'stock_details' }, write: false,
  request: z.object({ ...baseRequest, action: z.literal('stock_details'), product_id: intId }),
  reply: loose,
});
export const adjustStock = defineOperation({
  name: 'catalog.stock.adjust', service: 'catalog', summary: 'Set target quantities per location, recorded as one stock move',
  paths: ['/inventory/ops/getdata'], domainWide: true, select: { action: 'stock_adjustment' }, write: true,
  request: z.object({ ...baseRequest, action: z.literal('stock_adjustment'), product_id: intId, qty_locations: z.record(z.string(), quantity({ min: 0 })), adjustment_type: optionalText(50), reference: optionalText(200), notes: optionalText(2000) }),
  reply: loose,
});
export const stockMoves = defineOperation({
  name: 'catalog.stock.moves', service: 'catalog', summary: 'Stock move history of a product',
  paths: ['/inventory/ops/getdata'], select: { action: 'stock_moves' }, write: false,
  request: z.object({ ...baseRequest, action: z.literal('stock_moves'), product_id: intId, ...pageRequest }),
  reply: loose,
});
export const listLocations = defineOperation({
  name: 'catalog.location.list', service: 'catalog', summary: 'Warehouses and their locations',
  paths: ['/inventory/ops/getdata'], select: { action: 'list_locations' }, write: false,
  request: z.object({ ...baseRequest, action: z.literal('list_locations') }),
  reply: loose,
});
export const createWarehouse = defineOperation({
  name: 'catalog.warehouse.create', service: 'catalog', summary: 'Create a warehouse',
  paths: ['/inventory/ops/getdata'], select: { action: 'create_warehouse' }, write: true,
  request: z.object({ ...baseRequest, action: z.literal('create_warehouse'), name: text(200).trim().min(1) }).loose(),
  reply: loose,
});
export const createLocation = defineOperation({
  name: 'catalog.location.create', service: 'catalog', summary: 'Create a location in a warehouse',
  paths: ['/inventory/ops/getdata'], select: { action: 'create_location' }, write: true,
  request: z.object({ ...baseRequest, action: z.literal('create_location'), warehouse_id: stringId, name: text(200).trim().min(1) }).loose(),
  reply: loose,
});

export const catalogOperations = [listProducts, createProduct, editProduct, deleteProduct, createVariant, createCategory, editCategory, stockDetails, adjustStock, stockMoves, listLocations, createWarehouse, createLocation];

const anyData = z.record(z.string(), z.unknown());
export const catalogEvents = [
  defineEvent({ type: 'catalog.product.created', summary: 'A product was created', data: anyData }),
  defineEvent({ type: 'catalog.product.updated', summary: 'A product was edited', data: anyData }),
  defineEvent({ type: 'catalog.product.deleted', summary: 'A product was soft-deleted', data: anyData }),
  defineEvent({ type: 'catalog.stock.adjusted', summary: 'Stock quantities changed by a stock move', data: anyData }),
];
