import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // Allocations name the entry that posted them, so the ledger replays them in posting order
  // (docs/invoicing.md "One ledger"): one made with its payment (`create` with allocations,
  // `register_payment`; the same transaction, so the same created_at) was posted by the payment's
  // entry, and is given it. An allocation made later that posted nothing (credit on the
  // document's own account, at the same worth) keeps none: it is replayed at its source's entry.
  name: '028_allocation_entries',
  async up(trx, schema) {
    await trx.raw(
      `update ??.payment_allocations a set journal_entry_id = p.journal_entry_id
           from ??.payments p
          where p.id = a.payment_id and a.journal_entry_id is null and a.created_at = p.created_at`,
      [schema, schema],
    );
  },
};
