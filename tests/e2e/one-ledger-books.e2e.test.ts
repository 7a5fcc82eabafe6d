import { createDb, type Knex } from '@bo/runtime';
import * as testing from '@bo/testkit';
import { newProducts } from '../support/catalog';
import { ok } from '../support/invoicing';
import { eventually, startTestSystem, type ApiResponse, type TestSystem } from '../support/system';

/**
 * Issue 40, cases 6 and 12: the books' settings belong to invoicing, which keeps the journal
 * (docs/invoicing.md "The books' settings"). Set through the organization profile, they hold in
 * invoicing once the profile answers, over real PostgreSQL and RabbitMQ: the accounting currency is
 * fixed once an entry has posted, and a lock date holds whatever the broker does with the profile's
 * event.
 */
describe('one ledger: the books settings belong to invoicing', () => {
  let sys: TestSystem;
  let partnersDb: Knex;
  let invoicingDb: Knex;
  let diverted: testing.DivertedEvents | undefined;
  beforeAll(async () => {
    sys = await startTestSystem();
    partnersDb = createDb(sys.databaseUrl, 'partners', 2);
    invoicingDb = createDb(sys.databaseUrl, 'invoicing', 2);
  }, 60_000);
  afterAll(async () => {
    // A test that failed midway leaves its diversion: undone here, so the system stops cleanly.
    await diverted?.release().catch(() => 0);
    await partnersDb?.destroy();
    await invoicingDb?.destroy();
    await sys?.stop();
  });

  const post = (org: 1 | 2, path: string, body: Record<string, unknown>) =>
    sys.post(path, { org_id: org, userid: 'e2e', ...body }, { org });
  const setProfile = (org: 1 | 2, fields: Record<string, unknown>) => post(org, '/organization/setprofile', fields);
  const invoicing = (org: 1 | 2, body: Record<string, unknown>) => post(org, '/invoicing/invoice/new', body);

  /** A customer in EUR and a service product of `org`, for its documents. */
  async function customerAndProduct(org: 1 | 2): Promise<{ customer: number; product: number }> {
    const created = await ok(
      post(org, '/crm/editpatner', { action: 'create', partnername: `Customer ${org}`, partner_type: 'customer', currency: 'EUR' }),
    );
    const [product] = (await newProducts(sys, [`Consulting ${org}`], { org })) as [number];
    return { customer: created.body.partner.id, product };
  }
  async function draft(org: 1 | 2, parties: { customer: number; product: number }, date: string): Promise<number> {
    const created = await eventually(() =>
      ok(
        invoicing(org, {
          invoicetype: 'invoiceout',
          partner: parties.customer,
          invoicedatetime: `${date}T09:00:00`,
          line_items: [{ product_id: parties.product, quantity: 1, price: 100, tax_rate: 0, tax_included: false }],
        }),
      ),
    );
    return created.body.invoice.id;
  }
  const snapshot = (schemas: Array<'partners' | 'invoicing'>) =>
    Promise.all(schemas.map((schema) => testing.schemaSnapshot(schema === 'partners' ? partnersDb : invoicingDb, schema)));
  /**
   * Proves `send` is refused 400 `validation_failed` on `field` alone and changes nothing in the
   * schemas named; the caller lets earlier events land first, so nothing else moves them meanwhile.
   */
  async function refusedUnchanged(
    send: () => Promise<ApiResponse>,
    field: string,
    schemas: Array<'partners' | 'invoicing'> = ['invoicing'],
  ): Promise<ApiResponse> {
    const before = await snapshot(schemas);
    const reply = await send();
    expect([reply.statusCode, reply.body.code, reply.body.errors?.map((e: { field: string }) => e.field)]).toEqual([
      400,
      'validation_failed',
      [field],
    ]);
    expect(await snapshot(schemas)).toEqual(before);
    return reply;
  }
  const books = async (org: number) => invoicingDb('organization_settings').where({ org_id: org }).first();

  it('case 6: the accounting currency is fixed once the first entry posts; setting the same one again is fine', async () => {
    await ok(setProfile(1, { legal_name: 'Euro Books Ltd', default_currency: 'EUR' }));
    // Invoicing has it once the profile answers, no event needed.
    expect((await books(1))?.default_currency).toBe('EUR');
    const parties = await customerAndProduct(1);
    const invoice = await draft(1, parties, '2026-05-04');
    // Before anything posts the currency may still move, and back.
    await ok(setProfile(1, { default_currency: 'USD' }));
    await ok(setProfile(1, { default_currency: 'EUR' }));
    await ok(invoicing(1, { validate_invoice: true, id: invoice }));
    await sys.eventsSettled();

    for (const default_currency of ['USD', null]) {
      const refused = await refusedUnchanged(
        () => setProfile(1, { default_currency, legal_name: 'Dollar Books Ltd' }),
        'default_currency',
        ['partners', 'invoicing'],
      );
      expect(refused.body.message).toContain('EUR');
    }
    const profile = (await ok(post(1, '/organization/getprofile', {}))).body.organization;
    expect([profile.default_currency, profile.legal_name]).toEqual(['EUR', 'Euro Books Ltd']);
    expect((await books(1))?.default_currency).toBe('EUR');

    const same = await ok(setProfile(1, { default_currency: 'eur', legal_name: 'Euro Books Group' }));
    expect(same.body.organization).toMatchObject({ default_currency: 'EUR', legal_name: 'Euro Books Group' });
  });

  it("case 12: with the profile's event held by the broker, a posting dated on or before an acknowledged lock date is refused", async () => {
    await ok(setProfile(2, { legal_name: 'Closing Ltd', default_currency: 'EUR' }));
    const parties = await customerAndProduct(2);
    const invoice = await draft(2, parties, '2026-03-02');
    await ok(invoicing(2, { validate_invoice: true, id: invoice }));
    const lateDraft = await draft(2, parties, '2026-03-20');
    await sys.eventsSettled();

    // Invoicing's consumer of the profile's event hears nothing from here on: the broker holds it.
    const held = await testing.divertEvents({
      amqpUrl: await testing.testAmqpUrl(),
      prefix: sys.system.config.BUS_PREFIX,
      consumer: 'invoicing.organization',
      eventType: 'partners.organization.updated',
    });
    diverted = held;
    const locked = await ok(setProfile(2, { lock_date: '2026-03-31' }));
    expect(locked.body.organization.lock_date).toBe('2026-03-31');
    // The event was published and never reached invoicing.
    await eventually(async () => expect(await held.held()).toBe(1));

    const backDated = await refusedUnchanged(
      () => invoicing(2, { register_payment: true, id: invoice, amount: 40, payment_date: '2026-03-31' }),
      'payment_date',
    );
    expect(backDated.body.message).toContain('locked up to 2026-03-31');
    await refusedUnchanged(() => invoicing(2, { validate_invoice: true, id: lateDraft }), 'lock_date');
    await refusedUnchanged(
      () =>
        post(2, '/invoicing/payments', {
          action: 'create',
          partner: parties.customer,
          amount: 10,
          currency: 'EUR',
          direction: 'in',
          payment_date: '2026-03-15',
        }),
      'payment_date',
    );
    // Dated after the lock it posts.
    await ok(invoicing(2, { register_payment: true, id: invoice, amount: 40, payment_date: '2026-04-01' }));

    // The held event arrives late and changes nothing of the books.
    expect(await held.release()).toBe(1);
    diverted = undefined;
    await sys.eventsSettled();
    await refusedUnchanged(
      () => invoicing(2, { register_payment: true, id: invoice, amount: 10, payment_date: '2026-03-30' }),
      'payment_date',
    );
    // Cleared on the profile, the books open at once.
    await ok(setProfile(2, { lock_date: null }));
    await ok(invoicing(2, { register_payment: true, id: invoice, amount: 10, payment_date: '2026-03-30' }));
  });
});
