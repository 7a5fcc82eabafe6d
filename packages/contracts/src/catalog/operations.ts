import { defineOperation } from '../operation';
import * as s from './schemas';

export const listProducts = defineOperation({
  name: 'catalog.product.list',
  service: 'catalog',
  summary: 'List products with stock summed over locations; search, category and type filters, sorting, pages',
  paths: ['/inventory/getproducts'],
  select: { default: true },
  write: false,
  request: s.listProductsRequest,
  reply: s.listProductsReply,
});
export const createProduct = defineOperation({
  name: 'catalog.product.create',
  service: 'catalog',
  summary: 'Create a product, placing its initial stock at a location',
  paths: ['/inventory/editproduct'],
  select: { default: true },
  write: true,
  request: s.createProductRequest,
  reply: s.productReply,
  rules: [
    {
      field: 'tax_category',
      rule: 'agrees with tax_rate (EN 16931): S and L above 0 (L: the CII rule BR-AF-05); Z, E, AE, K, G, O at 0; M 0 or more',
    },
    { field: 'stock', rule: 'given to inventory products only, not to a service or consumable product' },
    { field: 'min_stock_level', rule: 'not above max_stock_level' },
    { field: 'location_id', rule: 'a location of the warehouse named by warehouse_id' },
  ],
});
export const editProduct = defineOperation({
  name: 'catalog.product.edit',
  service: 'catalog',
  summary: 'Change the fields given of a product; `stock` adjusts the default location',
  paths: ['/inventory/editproduct'],
  select: { present: 'product_id' },
  write: true,
  request: s.editProductRequest,
  reply: s.productReply,
  rules: [
    {
      field: 'tax_category',
      rule: 'agrees with tax_rate (EN 16931): S and L above 0 (L: the CII rule BR-AF-05); Z, E, AE, K, G, O at 0; M 0 or more',
    },
    { field: 'tax_rate', rule: "agrees with the product's tax_category, the stored one when none is sent (as tax_category states)" },
    { field: 'stock', rule: 'given to inventory products only, not to a service or consumable product' },
    { field: 'min_stock_level', rule: 'not above max_stock_level (the stored one when only one is sent)' },
  ],
});
export const deleteProduct = defineOperation({
  name: 'catalog.product.delete',
  service: 'catalog',
  summary: 'Soft-delete a product and its variants, freeing their SKUs',
  paths: ['/inventory/editproduct'],
  select: { flag: 'delete' },
  write: true,
  request: s.deleteProductRequest,
  reply: s.messageReply,
});
export const createVariant = defineOperation({
  name: 'catalog.variant.create',
  service: 'catalog',
  summary: 'Create a variant of a product with its own SKU, barcode, price and cost',
  paths: ['/inventory/editproduct'],
  select: { action: 'create_variant' },
  write: true,
  request: s.createVariantRequest,
  reply: s.variantReply,
  rules: [
    {
      field: 'tax_category',
      rule: "comes with tax_rate (a variant names both, or takes its product's) and agrees with it (EN 16931): S above 0; Z, E, AE, K, G, O at 0; L, M 0 or more",
    },
    { field: 'options', rule: 'no option name twice, names compared without case' },
  ],
});
export const createCategory = defineOperation({
  name: 'catalog.category.create',
  service: 'catalog',
  summary: 'Create a product category',
  paths: ['/inventory/categories'],
  select: { default: true },
  write: true,
  request: s.createCategoryRequest,
  reply: s.categoryReply,
});
export const editCategory = defineOperation({
  name: 'catalog.category.edit',
  service: 'catalog',
  summary: 'Edit a product category (cycles refused)',
  paths: ['/inventory/categories'],
  select: { present: 'category_id' },
  write: true,
  request: s.editCategoryRequest,
  reply: s.editCategoryReply,
  rules: [{ field: 'parent_id', rule: 'does not make the category its own ancestor' }],
});
export const stockDetails = defineOperation({
  name: 'catalog.stock.details',
  service: 'catalog',
  summary: 'Stock of a product per location',
  paths: ['/inventory/ops/getdata'],
  select: { action: 'stock_details' },
  write: false,
  request: s.stockDetailsRequest,
  reply: s.stockDetailsReply,
});
export const adjustStock = defineOperation({
  name: 'catalog.stock.adjust',
  service: 'catalog',
  summary: 'Set target quantities per location, recorded as one stock move',
  paths: ['/inventory/ops/getdata'],
  domainWide: true,
  select: { action: 'stock_adjustment' },
  write: true,
  request: s.adjustStockRequest,
  reply: s.adjustStockReply,
});
export const stockMoves = defineOperation({
  name: 'catalog.stock.moves',
  service: 'catalog',
  summary: 'Stock move history of a product, newest first',
  paths: ['/inventory/ops/getdata'],
  select: { action: 'stock_moves' },
  write: false,
  request: s.stockMovesRequest,
  reply: s.stockMovesReply,
});
export const listLocations = defineOperation({
  name: 'catalog.location.list',
  service: 'catalog',
  summary: 'Warehouses and their locations',
  paths: ['/inventory/ops/getdata'],
  select: { action: 'list_locations' },
  write: false,
  request: s.listLocationsRequest,
  reply: s.listLocationsReply,
});
export const createWarehouse = defineOperation({
  name: 'catalog.warehouse.create',
  service: 'catalog',
  summary: 'Create a warehouse with its main location',
  paths: ['/inventory/ops/getdata'],
  select: { action: 'create_warehouse' },
  write: true,
  request: s.createWarehouseRequest,
  reply: s.createWarehouseReply,
});
export const createLocation = defineOperation({
  name: 'catalog.location.create',
  service: 'catalog',
  summary: 'Create a location in a warehouse',
  paths: ['/inventory/ops/getdata'],
  select: { action: 'create_location' },
  write: true,
  request: s.createLocationRequest,
  reply: s.createLocationReply,
});

/** Internal: sales and invoicing check the products, variants and locations their lines name, all in one call. */
export const lookup = defineOperation({
  name: 'catalog.lookup',
  service: 'catalog',
  summary: 'Internal lookup of live products, variants and locations by id (not routed over HTTP)',
  paths: [],
  select: { default: true },
  write: false,
  request: s.lookupRequest,
  reply: s.lookupReply,
});

export const catalogOperations = [
  listProducts,
  createProduct,
  editProduct,
  deleteProduct,
  createVariant,
  createCategory,
  editCategory,
  stockDetails,
  adjustStock,
  stockMoves,
  listLocations,
  createWarehouse,
  createLocation,
  lookup,
];
