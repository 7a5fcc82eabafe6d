import { migrate, type Knex } from '@bo/runtime';
import * as testing from '@bo/testkit';
import { invoicingMigrations } from '../src/migrations';

/** Migration 014 over journal entries as validation posted them before VAT lines carried their category. */
describe('invoicing migration 014: tax lines posted before', () => {
  const schema = 'invoicing';
  let migrated: testing.MigratedDatabase;
  let db: Knex;

  beforeAll(async () => {
    // The schema before documents carried their taxes (013) and the journal its VAT (014).
    migrated = await testing.migratedDatabase(
      schema,
      testing.migrationsUpTo(invoicingMigrations, '012_partner_fence_check', { including: true }),
    );
    db = migrated.db;
  });
  afterAll(() => migrated?.drop());

  let seq = 0;
  /** A validated document as it was stored: its lines (rate, net) and its entry with one lump of tax. */
  async function oldPosting(invoicetype: string, lines: Array<[rate: string, net: string]>, tax: string): Promise<number> {
    seq += 1;
    const sales = invoicetype === 'invoiceout' || invoicetype === 'creditout';
    const [invoice] = await db('invoices')
      .insert({
        org_id: 1,
        invoicenumber: `OLD-${seq}`,
        invoicetype,
        partner_id: 10,
        invoicestatus: 'open',
        invoicedatetime: '2025-06-01T10:00:00Z',
      })
      .returning<Array<{ id: number }>>('id');
    await db('invoice_lines').insert(
      lines.map(([rate, net]) => ({
        org_id: 1,
        invoice_id: invoice!.id,
        product_id: '7',
        quantity: '1',
        price: net,
        tax_rate: rate,
        tax_included: false,
        subtotal: net,
        tax_amount: '0',
        total: net,
      })),
    );
    const [entry] = await db('journal_entries')
      .insert({
        org_id: 1,
        invoice_id: invoice!.id,
        kind: 'invoice',
        journalname: 'J',
        journaldate: '2025-06-01',
        amount: '1.00',
        reference: 'x',
      })
      .returning<Array<{ id: number }>>('id');
    const [line] = await db('journal_lines')
      .insert([
        { entry_id: entry!.id, account: sales ? '2200 Tax Payable' : '1400 Tax Receivable', label: 'Tax', debit: tax, credit: '0' },
        { entry_id: entry!.id, account: '4000 Sales Revenue', label: 'Revenue', debit: '0', credit: tax },
      ])
      .returning<Array<{ id: number }>>('id');
    return line!.id;
  }

  it('gives a one-rate document its category, rate and base; several rates stay a lump with the taxed base', async () => {
    const oneRate = await oldPosting(
      'invoiceout',
      [
        ['19.0000', '100.00'],
        ['19.0000', '50.00'],
      ],
      '28.50',
    );
    const purchase = await oldPosting('invoicein', [['7.0000', '10.00']], '0.70');
    const severalRates = await oldPosting(
      'invoiceout',
      [
        ['20.0000', '100.00'],
        ['5.5000', '10.00'],
        ['0.0000', '40.00'],
      ],
      '20.55',
    );
    await migrate(db, schema, invoicingMigrations);

    const taxLine = (id: number) => db('journal_lines').where({ id }).first('tax_category', 'tax_rate', 'tax_base', 'debit', 'credit');
    expect(await taxLine(oneRate)).toEqual({ tax_category: 'S', tax_rate: '19.0000', tax_base: '150.00', debit: '28.50', credit: '0.00' });
    expect(await taxLine(purchase)).toEqual({ tax_category: 'S', tax_rate: '7.0000', tax_base: '10.00', debit: '0.70', credit: '0.00' });
    expect(await taxLine(severalRates)).toEqual({
      tax_category: null,
      tax_rate: null,
      tax_base: '110.00',
      debit: '20.55',
      credit: '0.00',
    });
    // Lines that post no tax carry none.
    const others = await db('journal_lines').whereNot({ label: 'Tax' }).whereNotNull('tax_base');
    expect(others).toEqual([]);
  });
});
