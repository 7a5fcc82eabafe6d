import { withLockTimeout, type Migration } from '@bo/runtime';

export const migration: Migration = {
  // The journal's figure beside the face amount (docs/partners.md "Currencies"): a row posted from an
  // event that tells its journal entry's trade move (`trade_delta`) keeps it, and partner_balances
  // sums, per currency, those moves (`booked_*`) and the face amounts of the same rows
  // (`booked_face_*`), so the accounting-currency balance is the journal's for what was told and
  // weighed at the documents' rate, as before, for the rest. Rows posted before stay untold.
  name: '009_ledger_journal_moves',
  async up(trx, schema) {
    await withLockTimeout(trx, async () => {
      await trx.raw(
        'alter table ??.partner_transactions add column accounting_effect numeric, add column accounting_receivable_effect numeric',
        [schema],
      );
      await trx.raw(
        `alter table ??.partner_balances add column booked_balance numeric not null default 0,
             add column booked_receivable numeric not null default 0, add column booked_face_balance numeric not null default 0,
             add column booked_face_receivable numeric not null default 0`,
        [schema],
      );
    });
  },
};
