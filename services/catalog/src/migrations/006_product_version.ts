import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // A product's version counts its record's changes (1 when made, one more per edit and at its
  // delete), so a receiver of its events, which are not delivered in order, keeps the newest.
  name: '006_product_version',
  async up(trx, schema) {
    await trx.raw('alter table ??.products add column version integer not null default 1', [schema]);
  },
};
