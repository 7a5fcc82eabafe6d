import { withLockTimeout, type Migration } from '@bo/runtime';

export const migration: Migration = {
  // The ledger's amounts are in the documents' currency to its minor unit (docs/invoicing.md
  // "Partners"), three decimals for KWD or BHD, as invoicing keeps them (its 018): unbounded, so a
  // value keeps the decimals it was written with; every amount stored before reads as it did.
  name: '006_ledger_minor_units',
  async up(trx, schema) {
    // A new row's zero reads 0.00, as it did.
    const exact = (...columns: string[]) =>
      columns.map((c) => `alter column ${c} type numeric, alter column ${c} set default 0.00`).join(', ');
    // No table is rewritten (dropping a numeric's scale is binary-compatible), but each ALTER takes
    // its table's lock while the running ledger writes it: a bounded wait, as for any live table.
    await withLockTimeout(trx, async () => {
      await trx.raw(`alter table ??.partners ${exact('balance', 'receivable', 'committed')}`, [schema]);
      await trx.raw(
        `alter table ??.partner_transactions ${exact('receivable_effect')}, alter column amount type numeric, alter column balance_effect type numeric`,
        [schema],
      );
      await trx.raw(`alter table ??.commitments ${exact('amount')}`, [schema]);
    });
  },
};
