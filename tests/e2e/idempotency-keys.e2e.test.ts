import { randomUUID } from 'node:crypto';
import { operations, serviceNames } from '@bo/contracts';
import { createDb, OPERATION_KEYS, type Knex } from '@bo/runtime';
import * as testing from '@bo/testkit';
import { startTestSystem, type ApiResponse, type TestSystem } from '../support/system';

/** A write family: the service and aggregate of an operation (`catalog.product`), as the catalogue names them. */
const familyOf = (name: string) => name.split('.').slice(0, 2).join('.');

/** Tables that events from other requests fill in the background: a refusal cannot be judged by them. */
const FED_BY_EVENTS = new Set(['partner_directory', 'organization_settings']);

/**
 * One Idempotency-Key names one request in the whole API: a key used by one operation is refused to
 * every other operation (of any service) and to the same operation with another body, with 422
 * `idempotency_key_reused`, and the refused request changes nothing.
 */
describe('one Idempotency-Key, one operation, one body, across the API', () => {
  let sys: TestSystem;
  let db: Knex;
  const fixtures = { partner: 0, product: 0, fee: '', warehouse: '', location: '', contract: 0, webhook: 0 };
  const today = new Date().toISOString().slice(0, 10);
  const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
  let seq = 0;
  const unique = (prefix: string) => `${prefix} ${++seq} ${randomUUID().slice(0, 6)}`;

  const ok = async (path: string, body: Record<string, unknown>) => {
    const r = await sys.post(path, { org_id: '1', userid: 'u1', ...body });
    if (r.statusCode !== 200) throw new Error(`${path} answered ${r.statusCode}: ${JSON.stringify(r.body)}`);
    return r.body;
  };

  beforeAll(async () => {
    // One sample imports a received e-invoice: the rules are warmed at start, and a cold first run may
    // outlast the default RPC wait on a loaded machine.
    sys = await startTestSystem({ env: { EINVOICE_RULES_WARM: 'on', RPC_TIMEOUT_MS: '60000' } });
    db = createDb(sys.databaseUrl, 'public', 2);
    fixtures.partner = Number((await ok('/crm/editpatner', { action: 'create', partnername: 'Keys Co', partner_type: 'both' })).partner.id);
    fixtures.product = Number((await ok('/inventory/editproduct', { name: 'Keyed widget', stock: 5 })).product.id);
    fixtures.fee = String((await ok('/inventory/editproduct', { name: 'Keyed fee', type: 'service', price: 2.5 })).product.id);
    fixtures.warehouse = (await ok('/inventory/ops/getdata', { action: 'create_warehouse', name: 'Keys depot' })).warehouse.id;
    fixtures.location = (await ok('/inventory/ops/getdata', { action: 'list_locations' })).locations[0].location_id;
    // A contract whose first child is a month away: the scheduler makes nothing while the test runs.
    fixtures.contract = Number(
      (
        await ok('/invoicing/invoice/new', {
          invoicetype: 'invoiceout',
          partner: String(fixtures.partner),
          invoicedatetime: `${inDays(30)}T00:00:00`,
          line_items: [line()],
          recurring: { enabled: true, is_parent: true, frequency: 'monthly', start_date: inDays(30), status: 'active' },
        })
      ).invoice.id,
    );
    // An accounting currency for the exchange-rate samples; invoicing learns it from the profile's event.
    await ok('/organization/setprofile', { default_currency: 'EUR' });
    await testing.eventually(() => ok('/invoicing/exchangerates', { action: 'set', currency: 'USD', date: '2026-01-01', rate: '0.9' }));
    // An endpoint for an event no request here makes: its deliveries table stays as it is.
    fixtures.webhook = Number(
      (await ok('/integrations/webhooks', { action: 'create', url: 'https://203.0.113.10/keys', events: ['invoicing.invoice.paid'] }))
        .endpoint.id,
    );
  });
  afterAll(async () => {
    await db?.destroy();
    await sys?.stop();
  });

  function line() {
    return { product_id: fixtures.fee, quantity: 1, price: 2.5, tax_rate: 0, tax_included: false };
  }

  /** A request of each write family that succeeds when sent first; each call is a new request (another body). */
  const samples: Record<string, () => { operation: string; path: string; body: Record<string, unknown> }> = {
    'partners.partner': () => ({
      operation: 'partners.partner.create',
      path: '/crm/editpatner',
      body: { action: 'create', partnername: unique('Partner'), partner_type: 'customer' },
    }),
    'partners.organization': () => ({
      operation: 'partners.organization.set',
      path: '/organization/setprofile',
      body: { name: unique('Keys Org') },
    }),
    'catalog.product': () => ({ operation: 'catalog.product.create', path: '/inventory/editproduct', body: { name: unique('Product') } }),
    'catalog.variant': () => ({
      operation: 'catalog.variant.create',
      path: '/inventory/editproduct',
      body: {
        action: 'create_variant',
        parent_product_id: fixtures.product,
        variant_name: unique('Variant'),
        options: { size: unique('S') },
      },
    }),
    'catalog.category': () => ({ operation: 'catalog.category.create', path: '/inventory/categories', body: { name: unique('Category') } }),
    'catalog.stock': () => ({
      operation: 'catalog.stock.adjust',
      path: '/inventory/ops/getdata',
      body: { action: 'stock_adjustment', product_id: fixtures.product, qty_locations: { [fixtures.location]: 10 + ++seq } },
    }),
    'catalog.warehouse': () => ({
      operation: 'catalog.warehouse.create',
      path: '/inventory/ops/getdata',
      body: { action: 'create_warehouse', name: unique('Warehouse') },
    }),
    'catalog.location': () => ({
      operation: 'catalog.location.create',
      path: '/inventory/ops/getdata',
      body: { action: 'create_location', warehouse_id: fixtures.warehouse, name: unique('Rack') },
    }),
    'sales.quotation': () => ({
      operation: 'sales.quotation.create',
      path: '/sales/addline',
      body: {
        action: 'create_quotation',
        partner: String(fixtures.partner),
        quotation_type: 'quotation',
        quotation_date: `${today}T10:00:00`,
        valid_until: inDays(30),
        notes: unique('Quote'),
      },
    }),
    'webhooks.endpoint': () => ({
      operation: 'webhooks.endpoint.create',
      path: '/integrations/webhooks',
      body: { action: 'create', url: 'https://203.0.113.10/keys', events: ['invoicing.invoice.paid'], description: unique('Hook') },
    }),
    'webhooks.delivery': () => ({
      operation: 'webhooks.delivery.redeliver',
      path: '/integrations/webhooks',
      body: { action: 'redeliver', endpoint_id: fixtures.webhook, since: new Date(Date.now() - ++seq * 1000).toISOString().slice(0, 19) },
    }),
    'invoicing.invoice': () => ({
      operation: 'invoicing.invoice.create',
      path: '/invoicing/invoice/new',
      body: { invoicetype: 'invoiceout', partner: String(fixtures.partner), line_items: [{ ...line(), quantity: ++seq }] },
    }),
    // Pausing the one contract: refused as a second request, it is still active when sent first.
    'invoicing.exchange_rate': () => ({
      operation: 'invoicing.exchange_rate.set',
      path: '/invoicing/exchangerates',
      body: { action: 'set', currency: 'USD', date: `2025-01-${String((++seq % 28) + 1).padStart(2, '0')}`, rate: `0.${++seq}` },
    }),
    'invoicing.payment': () => ({
      operation: 'invoicing.payment.create',
      path: '/invoicing/payments',
      body: {
        action: 'create',
        partner: fixtures.partner,
        amount: `${++seq}.00`,
        currency: 'EUR',
        direction: 'in',
        reference: unique('Pay'),
      },
    }),
    'invoicing.bank': () => ({
      operation: 'invoicing.bank.rules',
      path: '/invoicing/bank',
      body: { action: 'rules', rule_action: 'create', name: unique('Rule'), match_text: unique('Fees'), account: '6800 Bank Charges' },
    }),
    'invoicing.dunning': () => ({
      operation: 'invoicing.dunning.levels',
      path: '/invoicing/dunning',
      body: { action: 'levels', levels: [{ level: 1, days_after_due: ++seq, fee: '0', interest: false, text: unique('Reminder') }] },
    }),
    // A document the rules reject (it states nothing but its number): still a stored import, answered 200.
    'invoicing.inbound': () => ({
      operation: 'invoicing.inbound.import',
      path: '/invoicing/inbound',
      body: {
        action: 'import',
        content_base64: Buffer.from(
          `<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"><cbc:ID>${unique('Bill')}</cbc:ID></Invoice>`,
        ).toString('base64'),
      },
    }),
    'invoicing.recurring': () => ({
      operation: 'invoicing.recurring.pause',
      path: '/invoicing/invoice/new',
      body: { pause_recurring: true, id: fixtures.contract, userid: `u${++seq}` },
    }),
  };

  /** Every table of every service schema, except what events fill in the background. */
  const snapshot = async () => {
    const all: Record<string, unknown> = {};
    for (const schema of serviceNames) {
      for (const [table, value] of Object.entries(await testing.schemaSnapshot(db, schema))) {
        if (!FED_BY_EVENTS.has(table)) all[`${schema}.${table}`] = value;
      }
    }
    return all;
  };
  const post = (sample: { path: string; body: Record<string, unknown> }, key: string) =>
    sys.post(sample.path, { org_id: '1', userid: 'u1', ...sample.body }, { headers: { 'Idempotency-Key': key } });
  const answer = (r: ApiResponse) => ({ status: r.statusCode, body: r.body });

  it('has a sample request for every write family of the catalogue', () => {
    const families = [...new Set(operations.filter((op) => op.write && op.paths.length > 0).map((op) => familyOf(op.name)))];
    expect(Object.keys(samples).sort()).toEqual(families.sort());
    for (const [family, sample] of Object.entries(samples)) expect(familyOf(sample().operation)).toBe(family);
  });

  it('refuses a key of one write family to every other family, and to its own operation with another body, changing nothing', async () => {
    const families = Object.keys(samples);
    for (const first of families) {
      const key = `${first}-${randomUUID()}`;
      const request = samples[first]!();
      const done = await post(request, key);
      expect([first, done.statusCode, done.body]).toEqual([first, 200, expect.anything()]);
      // A payment's event moves the partner ledger after the answer: the snapshot is taken once it has.
      await sys.eventsSettled();
      const before = await snapshot();
      for (const second of [...families.filter((f) => f !== first), first]) {
        const reused = await post(samples[second]!(), key);
        expect([first, second, reused.statusCode, reused.body.code]).toEqual([first, second, 422, 'idempotency_key_reused']);
      }
      expect(await snapshot()).toEqual(before);
      // The key still names its first request: sent again, it answers as it did.
      expect(answer(await post(request, key))).toEqual(answer(done));
      expect(await db(OPERATION_KEYS).where({ org_id: 1, key }).select('operation')).toEqual([{ operation: request.operation }]);
    }
  });
});
