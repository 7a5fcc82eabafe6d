import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // The version of invoicing's books the profile's `default_currency` and `lock_date` were copied
  // from (docs/partners.md, docs/invoicing.md "The books' settings"): a set stores them only from a
  // newer one, so an older configure's answer that stores last cannot overwrite a newer one's.
  name: '013_profile_books_version',
  async up(trx, schema) {
    const q = `"${schema.replace(/"/g, '""')}"`;
    await trx.raw(`alter table ${q}.organization_profiles add column books_version bigint not null default 0`);
  },
};
