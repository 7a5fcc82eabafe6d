import type { ServiceDefinition } from '@bo/runtime';
import { createCategoryHandler } from './category/create-category.handler';
import { editCategoryHandler } from './category/edit-category.handler';
import { createLocationHandler } from './location/create-location.handler';
import { createWarehouseHandler } from './location/create-warehouse.handler';
import { listLocationsHandler } from './location/list-locations.handler';
import { documentStockConsumer } from './document/document-stock.consumer';
import { catalogMigrations } from './migrations';
import { createProductHandler } from './product/create-product.handler';
import { deleteProductHandler } from './product/delete-product.handler';
import { editProductHandler } from './product/edit-product.handler';
import { lookupHandler } from './product/lookup.handler';
import { listProductsHandler } from './product/list-products.handler';
import { adjustStockHandler } from './stock/adjust-stock.handler';
import { stockDetailsHandler } from './stock/stock-details.handler';
import { stockMovesHandler } from './stock/stock-moves.handler';
import { createVariantHandler } from './variant/create-variant.handler';

export const catalogService: ServiceDefinition = {
  name: 'catalog',
  migrations: catalogMigrations,
  handlers: [
    listProductsHandler,
    createProductHandler,
    editProductHandler,
    deleteProductHandler,
    createVariantHandler,
    createCategoryHandler,
    editCategoryHandler,
    stockDetailsHandler,
    adjustStockHandler,
    stockMovesHandler,
    listLocationsHandler,
    createWarehouseHandler,
    createLocationHandler,
    lookupHandler,
  ],
  subscriptions: [documentStockConsumer],
};
