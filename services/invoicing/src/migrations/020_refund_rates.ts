import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // A refund keeps the rate its money was paid out at and what that was worth in the accounting
  // currency (docs/invoicing.md "Payments in another currency"), as a payment does: the trade account
  // takes the credit's booked worth, the bank this, the exchange lines the difference. Refunds
  // before were paid out at the credit's worth: their bank line (none: worth 0.00), and no rate.
  name: '020_refund_rates',
  async up(trx, schema) {
    await trx.raw('alter table ??.payment_refunds add column exchange_rate numeric(18, 10), add column accounting_amount numeric', [
      schema,
    ]);
    await trx.raw(
      `update ??.payment_refunds r set accounting_amount = coalesce(
           (select sum(l.debit + l.credit) from ??.journal_lines l where l.entry_id = r.journal_entry_id and l.account = r.journal), 0)`,
      [schema, schema],
    );
    await trx.raw('alter table ??.payment_refunds alter column accounting_amount set not null', [schema]);
  },
};
