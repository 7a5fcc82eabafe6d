import { defineRefusals } from '@bo/runtime';

/** Every refusal of creating and editing a product, by name. */
export const productRefusals = defineRefusals('product', {
  /** No live product of the organization by that id. */
  productNotFound: (productId: number) => ({ code: 'not_found', message: `Product ${productId} not found` }),
  /** Stock given to a product that carries none (a service or consumable). */
  stockOnStocklessProduct: (type: string) => ({
    code: 'validation_failed',
    field: 'stock',
    message: `stock can only be given to inventory products, not to a ${type} product`,
  }),
  /** A new total below what locations other than the default one hold: those move by stock_adjustment. */
  stockBelowOtherLocations: (requested: string, elsewhere: string) => ({
    code: 'validation_failed',
    field: 'stock',
    message: `stock ${requested} is below the ${elsewhere} held outside the default location; use stock_adjustment for those locations`,
  }),
  /** A product made stockless while it still holds stock. */
  stockStillHeld: (productId: number, type: string) => ({
    code: 'invalid_state',
    message: `Product ${productId} still holds stock; adjust it to 0 before making it a ${type} product`,
  }),
  /** Minimum and maximum stock levels that contradict each other (stockLevelsProblem says how). */
  stockLevels: (message: string) => ({ code: 'validation_failed', field: 'min_stock_level', message }),
  /** A default tax rate and category that do not go together (taxDefaultProblem says how), named on the field the request changed. */
  taxDefault: (message: string, field: 'tax_category' | 'tax_rate') => ({ code: 'validation_failed', field, message }),
  /** A location outside the warehouse the request names beside it. */
  locationOutsideWarehouse: (locationId: string, warehouseId: string) => ({
    code: 'validation_failed',
    field: 'location_id',
    message: `location_id ${locationId} is not in warehouse ${warehouseId}`,
  }),
});
