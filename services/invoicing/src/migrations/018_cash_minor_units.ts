import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // Cash moves in its currency's minor unit (docs/invoicing.md "Cash application"): a BHD invoice
  // of 1.234 is paid, allocated, refunded and written off to the mill, as documents already keep
  // amounts of up to 4 decimals (013). Amounts stored before keep their value.
  name: '018_cash_minor_units',
  async up(trx, schema) {
    // Unbounded, as the documents' amounts and the journal's are: a value keeps the decimals it was
    // written with (at least two: journalAmount), so every amount stored before reads as it did.
    const exact = (...columns: string[]) =>
      columns.map((c) => `alter column ${c} type numeric, alter column ${c} set default 0.00`).join(', ');
    await trx.raw(`alter table ??.invoices ${exact('amount_paid', 'written_off_amount')}`, [schema]);
    await trx.raw(`alter table ??.payments ${exact('allocated', 'refunded')}, alter column amount type numeric`, [schema]);
    await trx.raw('alter table ??.payment_allocations alter column amount type numeric', [schema]);
    await trx.raw('alter table ??.payment_refunds alter column amount type numeric', [schema]);
  },
};
