import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // The organization's rounding policy for its documents (docs/invoicing.md "Taxes and rounding"):
  // null reads as `line`, the arithmetic of every document before the policy existed.
  name: '004_organization_rounding',
  async up(trx, schema) {
    await trx.raw(
      `alter table ??.organization_profiles add column rounding varchar(8) check (rounding in ('line', 'document')),
           add column cash_rounding numeric(14, 4) check (cash_rounding > 0)`,
      [schema],
    );
  },
};
