import { defineRefusals } from '@bo/runtime';

/** The refusal of the SKU registry, by name: SKUs are unique per organization across products and variants. */
export const skuRefusals = defineRefusals('sku', {
  skuTaken: (sku: string) => ({ code: 'duplicate', field: 'sku', message: `SKU ${sku} already exists` }),
});
