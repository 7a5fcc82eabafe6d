import { createDb, migrate, type Knex } from '@bo/runtime';
import * as testing from '@bo/testkit';
import { serviceDefinitions } from '../src/services';

const invoicingMigrations = serviceDefinitions.invoicing.migrations;
const salesMigrations = serviceDefinitions.sales.migrations;

/**
 * Invoicing's migration 022 reads sales' records, so its test needs both services' schemas: it lives
 * here, in the one workspace that knows every service. 022 over a database in the shape an upgrade finds: invoices made before 009 (conversions and
 * clients' claims alike named `quotation` and an id), 009 run since (no such link kept), and
 * sales' records of the conversions beside them.
 */
describe('invoicing migration 022: the conversion links 009 dropped, restored from the conversion records', () => {
  const schema = 'invoicing';
  let migrated: testing.MigratedDatabase;
  let db: Knex;
  let sales: Knex;

  beforeAll(async () => {
    migrated = await testing.migratedDatabase(
      schema,
      testing.migrationsUpTo(invoicingMigrations, '009_server_made_links_and_partial_credits'),
    );
    db = migrated.db;
    sales = createDb(migrated.database.url, 'sales', 2);
    await migrate(sales, 'sales', salesMigrations);
  });
  afterAll(async () => {
    await sales?.destroy();
    await migrated?.drop();
  });

  let seq = 0;
  const invoice = async (values: Record<string, unknown>): Promise<number> => {
    seq += 1;
    const [row] = await db('invoices')
      .insert({
        org_id: 1,
        invoicenumber: `OLD-${seq}`,
        invoicetype: 'invoiceout',
        partner_id: 10,
        invoicestatus: 'draft',
        invoicedatetime: '2026-01-31T08:00:00Z',
        invoicetotal: '100.00',
        ...values,
      })
      .returning<Array<{ id: number }>>('id');
    return row!.id;
  };
  /** A quotation as sales keeps it: converted (with its invoice), frozen by a conversion not finished, or untouched. */
  const quotation = async (id: number, values: Record<string, unknown>) => {
    await sales('quotations').insert({
      id,
      org_id: 1,
      quotation_number: `QUO-${id}`,
      quotation_type: 'quotation',
      status: 'draft',
      partner_id: 10,
      quotation_date: '2026-01-30T08:00:00Z',
      valid_until: '2026-03-01',
      ...values,
    });
  };
  const converted = (invoiceId: number) => ({
    status: 'converted',
    invoice_id: invoiceId,
    invoicetype: 'invoiceout',
    converted_at: '2026-01-31T08:00:00Z',
  });
  const frozen = { status: 'sent', conversion_attempted_at: '2026-01-31T08:00:00Z', convert_invoicetype: 'invoiceout' };

  it('links each invoice a conversion made again, and only those; a quotation that since got another invoice keeps it', async () => {
    // Before 009.
    const convertedDraft = await invoice({ sourcetype: 'quotation', sourceid: '17', sourcenumber: 'QUO-17' });
    const convertedOpen = await invoice({ invoicestatus: 'open', sourcetype: 'quotation', sourceid: '18' });
    const pendingAtUpgrade = await invoice({ sourcetype: 'quotation', sourceid: '19' });
    const claimedByClient = await invoice({ sourcetype: 'quotation', sourceid: '20' });
    const otherOrganization = await invoice({ org_id: 2, sourcetype: 'quotation', sourceid: '21' });
    const secondMadeLater = await invoice({ sourcetype: 'quotation', sourceid: '22' });
    await quotation(17, converted(convertedDraft));
    await quotation(18, converted(convertedOpen));
    await quotation(19, frozen);
    await quotation(20, {}); // a client typed its id: never converted
    await quotation(21, converted(otherOrganization)); // names an invoice of another organization
    await quotation(22, frozen);

    await migrate(db, schema, testing.migrationsUpTo(invoicingMigrations, '022_restore_conversion_links'));
    // 009 ran: no link kept, each listed for review.
    expect(await db('invoices').whereNotNull('converted_from_quotation_id')).toEqual([]);
    // Between 009 and this upgrade the pending conversion of 22 was retried and made a second invoice.
    const second = await invoice({ converted_from_quotation_id: 22 });

    await migrate(db, schema, invoicingMigrations);

    const links = await db('invoices').orderBy('id').select('id', 'converted_from_quotation_id as quotation');
    expect(links).toEqual([
      { id: convertedDraft, quotation: 17 },
      { id: convertedOpen, quotation: 18 },
      { id: pendingAtUpgrade, quotation: 19 },
      { id: claimedByClient, quotation: null },
      { id: otherOrganization, quotation: null },
      { id: secondMadeLater, quotation: null },
      { id: second, quotation: 22 },
    ]);
    const review = await db('source_link_review').orderBy('invoice_id').select('invoice_id', 'reason');
    expect(review.map((r) => r.invoice_id)).toEqual([claimedByClient, otherOrganization, secondMadeLater]);
    expect(review[2]!.reason).toContain(`another invoice (${second}) was made for the quotation since`);
    // The client's text is kept as it was typed.
    expect(await db('invoices').where({ id: convertedDraft }).first('sourcetype', 'sourceid', 'sourcenumber')).toEqual({
      sourcetype: 'quotation',
      sourceid: '17',
      sourcenumber: 'QUO-17',
    });
    // Restored, the link holds as the server's: the quotation's conversion now finds its invoice.
    await expect(invoice({ converted_from_quotation_id: 19 })).rejects.toThrow(/invoices_org_converted_quotation/);
  });
});

describe('invoicing migration 022 without sales in the database', () => {
  it('changes nothing', async () => {
    const migrated = await testing.migratedDatabase(
      'invoicing',
      testing.migrationsUpTo(invoicingMigrations, '022_restore_conversion_links'),
    );
    try {
      await migrated.db('invoices').insert({
        org_id: 1,
        invoicenumber: 'OLD-1',
        invoicetype: 'invoiceout',
        partner_id: 10,
        invoicestatus: 'draft',
        invoicedatetime: '2026-01-31T08:00:00Z',
        sourcetype: 'quotation',
        sourceid: '5',
      });
      await migrate(migrated.db, 'invoicing', invoicingMigrations);
      expect(await migrated.db('invoices').whereNotNull('converted_from_quotation_id')).toEqual([]);
    } finally {
      await migrated.drop();
    }
  });
});
