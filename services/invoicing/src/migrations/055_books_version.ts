import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // The books' version (docs/invoicing.md "The books' settings"): each change of the accounting
  // currency or lock date adds one, and `invoicing.books.configure` answers it with the settings, so
  // the organization profile keeps the newest of two concurrent sets, not the last to store.
  name: '055_books_version',
  async up(trx, schema) {
    const q = `"${schema.replace(/"/g, '""')}"`;
    await trx.raw(`alter table ${q}.organization_settings add column books_version bigint not null default 0`);
  },
};
