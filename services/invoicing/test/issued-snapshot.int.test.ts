import type { organization } from '@bo/contracts';
import { migrate, type Knex } from '@bo/runtime';
import * as testing from '@bo/testkit';
import { makePng } from '../../../tests/support/png';
import { invoicingMigrations } from '../src/migrations';
import { body, startWithFakePartners, type FakePartner } from './fixtures';

const logo = makePng({ width: 2, height: 1, colourType: 2 });
const profile = (over: Partial<organization.ProfileRecord> = {}) =>
  testing.profileRecord(1, {
    legal_name: 'Acme Ltd',
    address_line1: '1 Main Street',
    city: 'Dublin',
    country: 'IE',
    vat_id: 'IE6388047V',
    company_id: '123456',
    email: 'billing@acme.test',
    iban: 'IE29AIBK93115212345678',
    bic: 'AIBKIE2D',
    default_currency: 'EUR',
    logo_png: logo.toString('base64'),
    ...over,
  });
const customer = {
  country: 'FR',
  email: 'billing@alpha.test',
  tax_number: 'FR40303265045',
  address_line1: '5 rue de la Paix',
  city: 'Paris',
};

/** What validation freezes and how renders use it, over real PostgreSQL with a stand-in partners service. */
describe('invoicing: issued invoices keep the parties they were validated with', () => {
  const partnersTable: FakePartner[] = [
    { org: 1, id: 10, partnername: 'Client Alpha SARL', credit_limit: 0, balance: 0, partner_type: 'customer', record: { ...customer } },
    { org: 1, id: 11, partnername: 'Legacy SA', credit_limit: 0, balance: 0, partner_type: 'customer', record: { ...customer } },
  ];
  let svc: testing.TestService;
  let state: { profiles: Map<number, organization.ProfileRecord>; profileDown: boolean };

  beforeAll(async () => {
    ({ svc, state } = await startWithFakePartners(partnersTable));
    state.profiles.set(1, profile());
  });
  afterAll(async () => {
    await svc?.stop();
  });

  const line = { product_id: 7, quantity: 2, price: 150, tax_rate: 20, tax_included: false };
  const create = async (partner: number) =>
    body(
      await svc.call('invoicing.invoice.create', {
        userid: '5',
        invoicetype: 'invoiceout',
        partner,
        invoicedatetime: '2026-11-02T09:30:00',
        line_items: [line],
      }),
    ).invoice as { id: number; currency: string | null };
  const validate = async (id: number) => body(await svc.call('invoicing.invoice.validate', { validate_invoice: true, id }));
  const render = async (id: number, format: string) =>
    Buffer.from(body(await svc.call('invoicing.invoice.render', { id, format })).content_base64 as string, 'base64');
  const row = (id: number) =>
    svc
      .db('invoices')
      .where({ id })
      .first<{ currency: string | null; issued_parties: Record<string, any> | null; invoicestatus: string }>();
  const edit = (id: number, record: FakePartner['record']) => {
    const p = partnersTable.find((x) => x.id === id)!;
    p.record = { ...p.record, ...record };
  };

  it('validation freezes the seller, the buyer, the account, the currency and the logo (stored once per content), and later renders never change', async () => {
    const first = await create(10);
    const second = await create(10);
    // The partner has no currency: the invoice takes none until the organization's default is known here.
    expect(first.currency).toBeNull();
    expect((await row(first.id))?.issued_parties).toBeNull();

    await validate(first.id);
    const frozen = await row(first.id);
    expect(frozen?.currency).toBe('EUR');
    expect(frozen?.issued_parties).toMatchObject({
      currency: 'EUR',
      seller: { name: 'Acme Ltd', address_lines: ['1 Main Street', null], city: 'Dublin', vat_id: 'IE6388047V', company_id: '123456' },
      buyer: { name: 'Client Alpha SARL', country: 'FR', vat_id: 'FR40303265045', email: 'billing@alpha.test' },
      payment_account: { iban: 'IE29AIBK93115212345678', bic: 'AIBKIE2D', name: 'Acme Ltd' },
    });
    expect(frozen?.issued_parties?.logo_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(frozen?.issued_parties).not.toHaveProperty('logo_png');
    await validate(second.id);
    const logos = await svc.db('document_logos').where({ org_id: 1 }).select('sha256', 'png');
    expect(logos).toHaveLength(1);
    expect(Buffer.from(logos[0]!.png).equals(logo)).toBe(true);

    const before = { pdf: await render(first.id, 'pdf'), ubl: await render(first.id, 'ubl'), cii: await render(first.id, 'cii') };
    edit(10, { partnername: 'Client Beta GmbH', country: 'DE', tax_number: 'DE136695976', email: 'b@beta.test', currency: 'USD' });
    state.profiles.set(
      1,
      profile({ legal_name: 'Acme Holdings', iban: 'DE89370400440532013000', logo_png: null, default_currency: 'GBP' }),
    );
    for (const format of ['pdf', 'ubl', 'cii'] as const)
      expect([format, (await render(first.id, format)).equals(before[format])]).toEqual([format, true]);
    expect(before.ubl.toString('utf8')).toContain('<cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>');

    // A draft renders with the parties as they are now.
    const draft = await create(10);
    expect((await render(draft.id, 'ubl').catch((e: Error) => e.message)) as string).toMatch(/draft/);
    const draftPdf = await render(draft.id, 'pdf');
    expect(draftPdf.equals(before.pdf)).toBe(false);
    expect((await row(draft.id))?.issued_parties).toBeNull();
    edit(10, { ...customer, partnername: 'Client Alpha SARL', currency: null });
    state.profiles.set(1, profile());
  });

  it('an invoice issued before parties were frozen freezes them at its first render; with its partner gone, its e-invoice is refused as before', async () => {
    const legacy = await create(11);
    await validate(legacy.id);
    // As an invoice validated before this version left it.
    await svc.db('invoices').where({ id: legacy.id }).update({ issued_parties: null, currency: null });

    const first = await render(legacy.id, 'ubl');
    const frozen = await row(legacy.id);
    expect(frozen?.issued_parties).toMatchObject({ buyer: { name: 'Legacy SA' }, currency: 'EUR' });
    expect(frozen?.currency).toBe('EUR');
    edit(11, { partnername: 'Legacy Renamed' });
    expect((await render(legacy.id, 'ubl')).equals(first)).toBe(true);

    // Another legacy invoice whose partner the partners service no longer has.
    const orphan = await create(11);
    await validate(orphan.id);
    await svc.db('invoices').where({ id: orphan.id }).update({ issued_parties: null });
    const index = partnersTable.findIndex((p) => p.id === 11);
    const [gone] = partnersTable.splice(index, 1);
    try {
      const refused = await svc.call('invoicing.invoice.render', { id: orphan.id, format: 'ubl' });
      expect(refused).toMatchObject({ ok: false, status: 400, code: 'invalid_state', errors: [{ field: 'partner' }] });
      // The PDF still renders, with the name the read model kept.
      expect((await render(orphan.id, 'pdf')).length).toBeGreaterThan(0);
    } finally {
      partnersTable.splice(index, 0, gone!);
    }
  });

  it('refuses validation and changes nothing while the partners service cannot say what to freeze', async () => {
    const inv = await create(10);
    const before = await row(inv.id);
    state.profileDown = true;
    try {
      expect(await svc.call('invoicing.invoice.validate', { validate_invoice: true, id: inv.id })).toMatchObject({
        ok: false,
        status: 503,
        code: 'service_unavailable',
      });
    } finally {
      state.profileDown = false;
    }
    expect(await row(inv.id)).toEqual(before);
  });
});

/** Migration 010 over rows of the version before: currencies from the partner read model. */
describe('invoicing migration 010_issued_snapshot_and_currency', () => {
  const schema = 'invoicing';
  let migrated: testing.MigratedDatabase;
  let db: Knex;

  beforeAll(async () => {
    migrated = await testing.migratedDatabase(schema, testing.migrationsUpTo(invoicingMigrations, '010_issued_snapshot_and_currency'));
    db = migrated.db;
  });
  afterAll(() => migrated?.drop());

  it("gives every invoice its partner's currency where the read model has one, and leaves the rest to validation or their first render", async () => {
    await db('partner_directory').insert([
      { org_id: 1, id: 10, partnername: 'With', display_name: 'With', partner_type: 'customer', currency: 'CHF', version: 1 },
      { org_id: 1, id: 11, partnername: 'Without', display_name: 'Without', partner_type: 'customer', currency: null, version: 1 },
    ]);
    const invoice = (partner_id: number, org_id = 1, invoicenumber = `OLD-${partner_id}-${org_id}`) => ({
      org_id,
      invoicenumber,
      invoicetype: 'invoiceout',
      partner_id,
      invoicestatus: 'open',
      invoicedatetime: '2026-01-31T08:00:00Z',
    });
    await db('invoices').insert([invoice(10), invoice(11), invoice(10, 2)]);
    await migrate(db, schema, invoicingMigrations);
    const rows = await db('invoices').select('org_id', 'partner_id', 'currency', 'issued_parties').orderBy('id');
    expect(rows).toEqual([
      { org_id: 1, partner_id: 10, currency: 'CHF', issued_parties: null },
      { org_id: 1, partner_id: 11, currency: null, issued_parties: null },
      // Another organization's partner 10 is not this one.
      { org_id: 2, partner_id: 10, currency: null, issued_parties: null },
    ]);
    expect(await db('organization_settings').columnInfo()).toHaveProperty('default_currency');
    expect(await db('document_logos').count()).toEqual([{ count: 0 }]);
  });
});
