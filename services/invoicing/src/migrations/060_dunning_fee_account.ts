import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // The income account a posted reminder fee is credited to (docs/dunning.md "Fees in the journal"),
  // the organization's to choose; organizations that never chose keep 4750 Reminder Fees.
  name: '060_dunning_fee_account',
  async up(trx, schema) {
    const q = `"${schema.replace(/"/g, '""')}"`;
    await trx.raw(`alter table ${q}.dunning_settings add column fee_account varchar(100) not null default '4750 Reminder Fees'`);
  },
};
