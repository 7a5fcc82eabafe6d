import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // Catalog tax defaults (docs/catalog.md): a product's VAT category beside its rate, and a
  // variant's own rate and category; null takes the product's (its category: S or Z by its rate).
  name: '005_tax_defaults',
  async up(trx, schema) {
    await trx.raw('alter table ??.products add column tax_category varchar(2)', [schema]);
    await trx.raw('alter table ??.variants add column tax_rate numeric(9, 4), add column tax_category varchar(2)', [schema]);
  },
};
