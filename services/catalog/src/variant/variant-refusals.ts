import { defineRefusals } from '@bo/runtime';

/** Every refusal of creating a variant, by name. */
export const variantRefusals = defineRefusals('variant', {
  /** Options naming one option twice (names compare without case). */
  optionNamedTwice: (name: string) => ({
    code: 'validation_failed',
    field: 'options',
    message: `options names "${name}" twice (names compare without case)`,
  }),
  /** A tax category without the rate it goes with. */
  taxCategoryWithoutRate: () => ({
    code: 'validation_failed',
    field: 'tax_category',
    message: "tax_category goes with tax_rate: a variant names both, or takes its product's",
  }),
  /** A tax rate and category that do not go together (taxDefaultProblem says how). */
  taxDefault: (message: string) => ({ code: 'validation_failed', field: 'tax_category', message }),
  /** A variant of the product with these options already. */
  optionsTaken: (productId: number, options: Record<string, string>) => ({
    code: 'duplicate',
    field: 'options',
    message: `Product ${productId} already has a variant with options ${JSON.stringify(options)}`,
  }),
});
