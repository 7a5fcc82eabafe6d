import { withLockTimeout, type Migration } from '@bo/runtime';

export const migration: Migration = {
  // The partner's own bank accounts ([{iban, bic, name}], IBANs in electronic form), which bank
  // reconciliation matches statement lines by, and whether reminders skip the partner. `json`, not
  // jsonb: the listed record takes the stored text as it is (partner.record.ts storedBankAccounts).
  name: '011_partner_bank_accounts_and_dunning_block',
  async up(trx, schema) {
    await withLockTimeout(trx, async () => {
      await trx.raw(
        `alter table ??.partners add column bank_accounts json not null default '[]',
             add column dunning_blocked boolean not null default false`,
        [schema],
      );
    });
    // Which partner an IBAN on a statement line names.
    await trx.raw(
      `create index partners_bank_accounts on ??.partners using gin ((bank_accounts::jsonb) jsonb_path_ops) where deleted_at is null`,
      [schema],
    );
  },
};
