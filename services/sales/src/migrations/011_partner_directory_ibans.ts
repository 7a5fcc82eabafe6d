import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // The directory keeps each partner's own IBANs (its `bank_accounts`, normalized as partners stores
  // them), so a bank line from one of them names its partner (docs/bank.md "Suggestions"). Rows kept
  // before have none until the partner's next event.
  name: '011_partner_directory_ibans',
  async up(trx, schema) {
    await trx.raw(`alter table ??.partner_directory add column ibans text[] not null default '{}'`, [schema]);
  },
};
