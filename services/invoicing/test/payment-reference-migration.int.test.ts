import { invoicePaymentReference } from '@bo/kernel';
import { migrate, type Knex } from '@bo/runtime';
import * as testing from '@bo/testkit';
import { invoicingMigrations } from '../src/migrations';

/** Migration 040 over invoices validated before payment references: SQL computes what the kernel does. */
describe('invoicing migration 040: customer invoices validated before get their payment reference', () => {
  const schema = 'invoicing';
  let migrated: testing.MigratedDatabase;
  let db: Knex;

  beforeAll(async () => {
    migrated = await testing.migratedDatabase(schema, testing.migrationsUpTo(invoicingMigrations, '040_invoice_payment_reference'));
    db = migrated.db;
  });
  afterAll(() => migrated?.drop());

  it('gives validated customer invoices the kernel’s reference of their id, and drafts and bills none', async () => {
    const insert = async (values: Record<string, unknown>) => {
      const [row] = await db('invoices')
        .insert({ org_id: 1, partner_id: 10, invoicedatetime: '2026-01-31T08:00:00Z', invoicetype: 'invoiceout', ...values })
        .returning<Array<{ id: number }>>('id');
      return row!.id;
    };
    // Ten-digit ids: the SQL must not overflow where the kernel does not.
    await db.raw('select setval(pg_get_serial_sequence(?, ?), 2147480000)', [`${schema}.invoices`, 'id']);
    const open = await insert({ invoicenumber: 'INV-1', invoicestatus: 'open', validated_at: '2026-02-01T00:00:00Z' });
    const paid = await insert({ invoicenumber: 'INV-2', invoicestatus: 'paid', validated_at: '2026-02-01T00:00:00Z' });
    const draft = await insert({ invoicenumber: 'INV-3', invoicestatus: 'draft' });
    const bill = await insert({
      invoicenumber: 'BILL-1',
      invoicetype: 'invoicein',
      invoicestatus: 'open',
      validated_at: '2026-02-01T00:00:00Z',
    });

    await migrate(db, schema, invoicingMigrations);
    const rows = await db('invoices').orderBy('id').select('id', 'payment_reference');
    expect(rows.map((r) => [r.id, r.payment_reference])).toEqual([
      [open, invoicePaymentReference(Number(open))],
      [paid, invoicePaymentReference(Number(paid))],
      [draft, null],
      [bill, null],
    ]);
  });
});
