import { migrate, type Knex } from '@bo/runtime';
import * as testing from '@bo/testkit';
import { invoicingMigrations } from '../src/migrations';

/** Migration 020 over refunds as they were posted before: at the credit's worth, keeping no rate. */
describe('invoicing migration 020: refunds posted before keep their worth', () => {
  const schema = 'invoicing';
  let migrated: testing.MigratedDatabase;
  let db: Knex;

  beforeAll(async () => {
    migrated = await testing.migratedDatabase(
      schema,
      testing.migrationsUpTo(invoicingMigrations, '019_issued_accounting_currency', { including: true }),
    );
    db = migrated.db;
  });
  afterAll(() => migrated?.drop());

  /** An entry with its lines as [account, debit, credit]. */
  async function entry(kind: string, lines: Array<[string, string, string]>): Promise<number> {
    const [row] = await db('journal_entries')
      .insert({ org_id: 1, invoice_id: null, kind, journalname: 'Bank', journaldate: '2026-05-01', amount: '0', reference: kind })
      .returning<Array<{ id: number }>>('id');
    if (lines.length) {
      await db('journal_lines').insert(
        lines.map(([account, debit, credit]) => ({ entry_id: row!.id, account, label: kind, debit, credit })),
      );
    }
    return row!.id;
  }

  it('takes the bank line as the worth paid out, 0.00 where there was none, and keeps no rate', async () => {
    const paid = await entry('payment', [
      ['Bank', '48.00', '0.00'],
      ['1200 Accounts Receivable', '0.00', '48.00'],
    ]);
    const [payment] = await db('payments')
      .insert({
        org_id: 1,
        partner_id: 10,
        direction: 'in',
        amount: '60.02',
        currency: 'USD',
        payment_date: '2026-05-01',
        journal: 'Bank',
        journal_entry_id: paid,
        exchange_rate: '0.8',
        accounting_amount: '48.00',
        refunded: '60.02',
      })
      .returning<Array<{ id: number }>>('id');
    const refund = (journal_entry_id: number, amount: string) => ({
      org_id: 1,
      partner_id: 10,
      payment_id: payment!.id,
      direction: 'out',
      amount,
      currency: 'USD',
      refund_date: '2026-05-02',
      journal: 'Bank',
      journal_entry_id,
    });
    const worth = await entry('refund', [
      ['1200 Accounts Receivable', '48.00', '0.00'],
      ['Bank', '0.00', '48.00'],
    ]);
    // A cent's share of the credit rounded to nothing: no lines at all.
    const nothing = await entry('refund', []);
    await db('payment_refunds').insert([refund(worth, '60.00'), refund(nothing, '0.02')]);

    await migrate(db, schema, invoicingMigrations);
    const rows = await db('payment_refunds').orderBy('id').select('amount', 'exchange_rate', 'accounting_amount');
    expect(rows.map((r) => [r.amount, r.exchange_rate, Number(r.accounting_amount).toFixed(2)])).toEqual([
      ['60.00', null, '48.00'],
      ['0.02', null, '0.00'],
    ]);
  });
});
