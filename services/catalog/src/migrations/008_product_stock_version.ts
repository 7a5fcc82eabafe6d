import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // A product's stock version counts the writes of its stock (every move: an adjustment, a
  // document's, a create's or an edit's), each bumping it under the product's lock. A stock
  // adjustment decided on an unlocked read stores only while the version is still the one it read
  // (adjustment.repository.ts), so no move committed in between is lost.
  name: '008_product_stock_version',
  async up(trx, schema) {
    await trx.raw('alter table ??.products add column stock_version bigint not null default 0', [schema]);
  },
};
