import { migrate, type Knex } from '@bo/runtime';
import * as testing from '@bo/testkit';
import { invoicingMigrations } from '../src/migrations';

/**
 * Migration 013 (runtime document-taxes-migration.ts, which sales' 009 runs too) over an invoice as
 * it was stored before documents carried their taxes: its lines get their category, and it gets the
 * breakdown `line` rounding computes (the VAT rounded once per rate), the rest of its old total as
 * its rounding amount, and the organization's currency where it had none.
 */
describe('invoicing migration 013: documents made before they carried their taxes', () => {
  const schema = 'invoicing';
  let migrated: testing.MigratedDatabase;
  let db: Knex;

  beforeAll(async () => {
    migrated = await testing.migratedDatabase(
      schema,
      testing.migrationsUpTo(invoicingMigrations, '012_partner_fence_check', { including: true }),
    );
    db = migrated.db;
  });
  afterAll(() => migrated?.drop());

  it('gives each line its category and each invoice its breakdown, VAT total, rounding amount and currency', async () => {
    await db('organization_settings').insert({ org_id: 1, default_currency: 'EUR', version: 1 });
    const invoice = async (org: number, total: string, lines: Array<[rate: string, net: string]>) => {
      const [row] = await db('invoices')
        .insert({
          org_id: org,
          invoicenumber: `OLD-${org}-${total}`,
          invoicetype: 'invoiceout',
          partner_id: 10,
          invoicestatus: 'open',
          invoicedatetime: '2025-06-01T10:00:00Z',
          subtotal: lines.reduce((sum, [, net]) => sum + Number(net), 0).toFixed(2),
          invoicetotal: total,
        })
        .returning<Array<{ id: number }>>('id');
      await db('invoice_lines').insert(
        lines.map(([rate, net]) => ({
          org_id: org,
          invoice_id: row!.id,
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
      return row!.id;
    };
    // Rounded per line, as before: 1.005 twice made 2.02; once on the 20.10 base it is 2.01.
    const mixed = await invoice(1, '27.12', [
      ['10', '10.05'],
      ['0', '5.00'],
      ['10', '10.05'],
    ]);
    // Of an organization invoicing has no currency for: it keeps none.
    const elsewhere = await invoice(2, '11.00', [['10', '10.00']]);

    await migrate(db, schema, testing.migrationsUpTo(invoicingMigrations, '013_document_taxes', { including: true }));

    expect(await db('invoice_lines').where({ invoice_id: mixed }).orderBy('id').pluck('tax_category')).toEqual(['S', 'Z', 'S']);
    const row = await db('invoices').where({ id: mixed }).first();
    expect({
      breakdown: row.tax_breakdown,
      vat_total: row.vat_total,
      rounding_amount: row.rounding_amount,
      currency: row.currency,
      rounding: row.rounding,
      allowances_charges: row.allowances_charges,
    }).toEqual({
      breakdown: [
        { tax_category: 'S', tax_rate: '10', taxable_amount: '20.10', tax_amount: '2.01', exemption_reason: null, exemption_code: null },
        { tax_category: 'Z', tax_rate: '0', taxable_amount: '5.00', tax_amount: '0.00', exemption_reason: null, exemption_code: null },
      ],
      vat_total: '2.0100',
      rounding_amount: '0.0100',
      currency: 'EUR',
      rounding: null,
      allowances_charges: [],
    });
    expect(await db('invoices').where({ id: elsewhere }).first()).toMatchObject({
      currency: null,
      vat_total: '1.0000',
      rounding_amount: '0.0000',
    });
  });
});
