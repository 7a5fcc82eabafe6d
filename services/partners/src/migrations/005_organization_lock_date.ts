import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // The last day of closed books (docs/invoicing.md "Lock date"); null: none.
  name: '005_organization_lock_date',
  async up(trx, schema) {
    await trx.raw('alter table ??.organization_profiles add column lock_date date', [schema]);
  },
};
