import { defineRefusals } from '@bo/runtime';

/** Every refusal of a stock adjustment, by name: what decideAdjustment throws, and what its tests assert. */
export const stockRefusals = defineRefusals('stock', {
  /** No live product of the organization by that id. */
  productNotFound: (productId: number) => ({ code: 'not_found', message: `Product ${productId} not found` }),
  /** A service or consumable product: only inventory products carry stock. */
  productCarriesNoStock: (productId: number, type: string) => ({
    code: 'invalid_state',
    message: `Product ${productId} is a ${type} product; only inventory products carry stock`,
  }),
  /** A location key that is no id, or no location of the organization. */
  locationNotFound: (key: string) => ({ code: 'not_found', message: `Location ${key} not found` }),
});
