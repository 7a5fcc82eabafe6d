import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '@bo/contracts';
import { applyInboxBatch, createLogger, NotAsDecided, storeAlone } from '@bo/runtime';
import * as testing from '@bo/testkit';
import { ledgerConsumer } from '../src/ledger/ledger.consumer';
import { toPartnerRecord } from '../src/partner/partner.record';
import { partnerDeleteAlone, readDeleteTarget } from '../src/partner/partner.repository';
import { makePng } from '../../../tests/support/png';
import { partnersService } from '../src/service';
import { cancelledData, convertedData, paymentData, validatedData } from './ledger-events';
import { fakeDocumentServices } from './fake-documents';

type Reply = Awaited<ReturnType<testing.TestService['call']>>;
const body = (r: Reply) => {
  if (!r.ok) throw new Error(`expected success, got ${r.status} ${r.message}`);
  return r.body as Record<string, any>;
};

describe('partners service over PostgreSQL and RabbitMQ', () => {
  let svc: testing.TestService;
  let documents: Awaited<ReturnType<typeof fakeDocumentServices>>;
  beforeAll(async () => {
    svc = await testing.startTestService(partnersService, { EVENT_MAX_ATTEMPTS: '3' });
    documents = await fakeDocumentServices(svc);
  });
  afterAll(async () => {
    await svc?.stop();
  });

  const create = async (fields: Record<string, unknown>, org = 1) =>
    body(await svc.call('partners.partner.create', { action: 'create', partner_type: 'customer', ...fields }, org)).partner;

  it('creates a partner with defaults and publishes partners.partner.created', async () => {
    const seen = await svc.collect(['partners.partner.created']);
    const partner = await create({ partnername: 'Globex', credit_limit: 500, currency: 'usd' });
    expect(partner).toMatchObject({
      partnername: 'Globex',
      display_name: 'Globex',
      balance: 0,
      credit_limit: 500,
      currency: 'USD',
      orgid: 1,
    });
    await waitFor(() => seen.some((e) => e.data['id'] === partner.id));
    const event = seen.find((e) => e.data['id'] === partner.id)!;
    expect(event).toMatchObject({ type: 'partners.partner.created', org_id: 1, data: { partnername: 'Globex' } });
  });

  it('edits only the fields given and soft-deletes', async () => {
    const p = await create({ partnername: 'Initech', email: 'a@initech.test', phone: '555' });
    const edited = body(await svc.call('partners.partner.edit', { action: 'edit', partner_id: p.id, phone: '777' })).partner;
    expect(edited).toMatchObject({ partnername: 'Initech', email: 'a@initech.test', phone: '777' });
    body(await svc.call('partners.partner.delete', { action: 'delete', partner_id: p.id }));
    const again = await svc.call('partners.partner.delete', { action: 'delete', partner_id: p.id });
    expect(again).toMatchObject({ ok: false, status: 400, code: 'not_found' });
    const row = await svc.db('partners').where({ id: p.id }).first();
    expect(row.deleted_at).not.toBeNull();
  });

  it('answers an edit with the partner exactly as stored and as its event carries it: every field the edit writes', async () => {
    const seen = await svc.collect(['partners.partner.updated']);
    const p = await create({ partnername: 'Umbrella', email: 'x@umbrella.test', credit_limit: 100, currency: 'KWD' });
    const edited = body(
      await svc.call('partners.partner.edit', {
        action: 'edit',
        partner_id: p.id,
        email: '',
        display_name: '  ',
        credit_limit: '250.125',
        notes: 'Line one\nline two',
        city: ' Kuwait City ',
        bank_accounts: [{ iban: 'KW81CBKU0000000000001234560101', name: ' Main ' }],
        dunning_blocked: true,
      }),
    ).partner;
    expect(edited).toMatchObject({ email: null, display_name: 'Umbrella', credit_limit: 250.125, city: 'Kuwait City', version: 2 });
    expect(body(await svc.call('partners.partner.get', { partner_id: p.id })).partner).toEqual(edited);
    await waitFor(() => seen.some((e) => e.data['id'] === p.id));
    expect(seen.find((e) => e.data['id'] === p.id)!.data).toEqual(edited);
  });

  it("never shows another organization's partner", async () => {
    const p = await create({ partnername: 'Private' }, 2);
    for (const [op, extra] of [
      ['partners.partner.edit', { action: 'edit', partnername: 'Hacked' }],
      ['partners.partner.delete', { action: 'delete' }],
      ['partners.partner.balance', {}],
      ['partners.partner.get', {}],
    ] as const) {
      expect(await svc.call(op, { ...extra, partner_id: p.id }, 1)).toMatchObject({ ok: false, code: 'not_found' });
    }
    const row = await svc.db('partners').where({ id: p.id }).first();
    expect(row).toMatchObject({ partnername: 'Private', deleted_at: null });
  });

  describe('ledger fed by invoicing and sales events', () => {
    let partnerId: number;
    beforeAll(async () => {
      partnerId = (await create({ partnername: 'Ledger Co', credit_limit: 1000 })).id;
    });

    const validated = (invoiceId: number, type: string, total: number) => validatedData(partnerId, invoiceId, type, total);
    const balanceView = async () => body(await svc.call('partners.partner.balance', { partner_id: partnerId, include_transactions: true }));

    it('adds a validated invoice once even when the event is delivered twice', async () => {
      const id = '11111111-1111-4111-8111-111111111111';
      await svc.publish('invoicing.invoice.validated', 1, validated(101, 'invoiceout', 250.1), id);
      await svc.publish('invoicing.invoice.validated', 1, validated(101, 'invoiceout', 250.1), id);
      // The ledger applies its queue in order: once an event published after the twin took effect,
      // the twin was handled too.
      await svc.publish('invoicing.invoice.cancelled', 1, { ...validated(9101, 'invoiceout', 1), cancelled_at: '2026-03-02T00:00:00' });
      await waitFor(async () => (await svc.db('commitments').where({ org_id: 1, invoice_id: 9101 })).length === 1);
      const view = await balanceView();
      expect(view.partner).toMatchObject({ balance: 250.1, available_credit: 749.9 });
      expect(view.transactions).toEqual([
        { id: expect.any(Number), type: 'invoice', document_number: 'DOC-101', date: '2026-03-01', amount: 250.1, paid: 0, due: 250.1 },
      ]);
      expect(await svc.db('inbox').where({ event_id: id })).toHaveLength(1);
    });

    it('moves the balance back by payments and forward by credit notes the right way', async () => {
      await svc.publish('invoicing.invoice.payment_registered', 1, paymentData(partnerId, 101, 1, 100.05, 250.1));
      await svc.publish('invoicing.invoice.validated', 1, validated(102, 'creditout', 50));
      await waitFor(async () => (await balanceView()).partner.balance === 100.05);
      const view = await balanceView();
      expect(view.transactions.map((t: any) => [t.type, t.document_number, t.amount, t.paid, t.due])).toEqual([
        ['invoice', 'DOC-101', 250.1, 100.05, 150.05],
        ['credit_note', 'DOC-102', 50, 0, 50],
        ['payment', 'DOC-101', 100.05, 100.05, 0],
      ]);
    });

    it('raises committed on conversion and releases it on validation, in either order', async () => {
      const converted = (invoiceId: number) => convertedData(partnerId, invoiceId, 115);
      await svc.publish('sales.quotation.converted', 1, converted(201));
      await waitFor(async () => (await balanceView()).partner.committed === 115);
      // The commitment lists as a transaction, and exposure adds it to the balance.
      const open = await balanceView();
      expect(open.partner.exposure).toBe(open.partner.balance + 115);
      expect(open.transactions.filter((t: any) => t.type === 'commitment')).toEqual([
        { id: 201, type: 'commitment', document_number: 'QUO-201', date: expect.any(String), amount: 115, paid: 0, due: 115 },
      ]);
      await svc.publish('invoicing.invoice.cancelled', 1, cancelledData(partnerId, 201, 115));
      await waitFor(async () => (await balanceView()).partner.committed === 0);
      expect((await balanceView()).transactions.filter((t: any) => t.type === 'commitment')).toEqual([]);

      // The invoice validated before the conversion event arrived: nothing stays committed.
      await svc.publish('invoicing.invoice.validated', 1, validated(202, 'invoiceout', 115));
      await waitFor(async () => (await balanceView()).partner.balance === 215.05);
      const late = await svc.publish('sales.quotation.converted', 1, converted(202));
      await waitFor(async () => (await svc.db('inbox').where({ consumer: 'partners.ledger', event_id: late.id })).length === 1);
      expect((await balanceView()).partner.committed).toBe(0);
    });
  });

  it('commits only conversions to customer invoices, for a `both` partner too: its vendor side and credit notes commit nothing', async () => {
    const both = (await create({ partnername: 'Both Ways Co', partner_type: 'both', credit_limit: 1000 })).id as number;
    const view = async () => body(await svc.call('partners.partner.balance', { partner_id: both, include_transactions: true }));
    const published = [];
    for (const [invoiceId, type] of [
      [601, 'creditout'],
      [602, 'invoicein'],
      [603, 'creditin'],
    ] as const)
      published.push(await svc.publish('sales.quotation.converted', 1, convertedData(both, invoiceId, 400, type)));
    // The customer invoice last: once it is committed, the three before it were handled (the ledger applies its queue in order).
    published.push(await svc.publish('sales.quotation.converted', 1, convertedData(both, 604, 115.25)));
    await waitFor(async () => (await view()).partner.committed === 115.25);
    const after = await view();
    expect(after.partner).toMatchObject({ balance: 0, committed: 115.25, exposure: 115.25 });
    expect(after.transactions.map((t: any) => [t.type, t.document_number, t.amount])).toEqual([['commitment', 'QUO-604', 115.25]]);
    expect(await svc.db('commitments').where({ org_id: 1, partner_id: both }).pluck('invoice_id')).toEqual([604]);
    for (const event of published) expect(await svc.db('inbox').where({ consumer: 'partners.ledger', event_id: event.id })).toHaveLength(1);

    // Its vendor side moves the balance but not what it owes as a customer, so not its exposure.
    await svc.publish('invoicing.invoice.validated', 1, validatedData(both, 611, 'creditin', 500));
    await svc.publish('invoicing.invoice.validated', 1, validatedData(both, 612, 'invoicein', 80));
    await svc.publish('invoicing.invoice.validated', 1, validatedData(both, 613, 'invoiceout', 200));
    await svc.publish('invoicing.invoice.validated', 1, validatedData(both, 614, 'creditout', 50));
    await svc.publish('invoicing.invoice.payment_registered', 1, { ...paymentData(both, 611, 6110, 100, 500), invoicetype: 'creditin' });
    await svc.publish('invoicing.invoice.payment_registered', 1, paymentData(both, 613, 6130, 30, 200));
    // 500 - 80 + 200 - 50 - 100 (a vendor credit partly refunded) - 30 (a customer payment)
    await waitFor(async () => (await view()).partner.balance === 440);
    expect((await view()).partner).toMatchObject({ balance: 440, receivable: 120, committed: 115.25, exposure: 235.25 });
  });

  it('applies a batch of ledger events as sets, ending exactly where applying them one by one ends', async () => {
    // The same story in two organizations: all at once in one, event by event in the other.
    const story = async (org: number): Promise<EventEnvelope[]> => {
      const partner = (await create({ partnername: `Batch Co ${org}`, credit_limit: 0 }, org)).id as number;
      const e = (type: string, data: Record<string, unknown>): EventEnvelope => ({
        id: randomUUID(),
        type,
        occurred_at: '2026-03-01T10:00:00',
        org_id: org,
        data,
      });
      return [
        e('sales.quotation.converted', convertedData(partner, 501, 115.5)),
        e('invoicing.invoice.validated', validatedData(partner, 502, 'invoiceout', 80.1)),
        e('sales.quotation.converted', convertedData(partner, 503, 40)),
        e('invoicing.invoice.validated', validatedData(partner, 501, 'invoiceout', 115.5)),
        e('invoicing.invoice.payment_registered', paymentData(partner, 502, 7001, 30.05, 80.1)),
        e('invoicing.invoice.cancelled', cancelledData(partner, 503, 40)),
        e('invoicing.invoice.validated', validatedData(partner, 504, 'invoiceout', 19.99)),
        e('sales.quotation.converted', convertedData(partner, 504, 19.99)),
        e('sales.quotation.converted', convertedData(partner, 505, 12.34)),
        // The same payment published again under another id, and a partner the organization does not have.
        e('invoicing.invoice.payment_registered', paymentData(partner, 502, 7001, 30.05, 80.1)),
        e('invoicing.invoice.validated', validatedData(999_999, 506, 'invoiceout', 1000)),
        e('invoicing.invoice.cancelled', cancelledData(partner, 507)),
      ];
    };
    const log = createLogger('test', 'silent');
    const [batched, oneByOne] = [41, 42];
    const events = await story(batched);
    const statements = await testing.statementsIn(svc.db, (trx) => applyInboxBatch(ledgerConsumer, trx, events, log));
    for (const event of await story(oneByOne)) await applyInboxBatch(ledgerConsumer, svc.db, [event], log);

    const state = async (org: number) => ({
      partner: await svc.db('partners').where({ org_id: org }).select('balance', 'committed').first(),
      commitments: await svc.db('commitments').where({ org_id: org }).select('invoice_id', 'amount', 'status').orderBy('invoice_id'),
      posted: await svc
        .db('partner_transactions')
        .where({ org_id: org })
        .select('type', 'source', 'source_id', 'document_number', 'amount', 'balance_effect')
        .orderBy(['source', 'source_id']),
    });
    const after = await state(batched);
    expect(after).toEqual(await state(oneByOne));
    expect(after.partner).toEqual({ balance: '185.54', committed: '12.34' });
    expect(after.commitments.map((c: { invoice_id: number; status: string }) => [c.invoice_id, c.status])).toEqual([
      [501, 'released'],
      [502, 'released'],
      [503, 'released'],
      [504, 'released'],
      [505, 'open'],
      [506, 'released'],
      [507, 'released'],
    ]);
    expect(after.posted).toHaveLength(4);
    // Twelve events (a conversion then its validation, a cancellation then a late conversion, a
    // payment posted twice) in two statements: the load of all they name, and the store of every
    // effect with their inbox rows.
    expect(statements.filter((sql) => !/^(BEGIN|COMMIT)/i.test(sql))).toHaveLength(2);
    expect(
      await svc.db('inbox').whereIn(
        'event_id',
        events.map((e) => e.id),
      ),
    ).toHaveLength(events.length);
  });

  it('applies an event delivered twice in one batch, and again in a later one, once', async () => {
    const org = 46;
    const partner = (await create({ partnername: 'Twice Co', credit_limit: 0 }, org)).id as number;
    const event: EventEnvelope = {
      id: randomUUID(),
      type: 'invoicing.invoice.validated',
      occurred_at: '2026-03-01T10:00:00',
      org_id: org,
      data: validatedData(partner, 831, 'invoiceout', 42.5),
    };
    const log = createLogger('test', 'silent');
    await applyInboxBatch(ledgerConsumer, svc.db, [event, event], log);
    const again = await testing.statementsIn(svc.db, (trx) => applyInboxBatch(ledgerConsumer, trx, [event], log));

    expect(await svc.db('partners').where({ org_id: org, id: partner }).select('balance').first()).toEqual({ balance: '42.5' });
    expect(await svc.db('partner_transactions').where({ org_id: org })).toHaveLength(1);
    expect(await svc.db('inbox').where({ event_id: event.id })).toHaveLength(1);
    // Found in the inbox by the load: nothing is decided, and only the bus's pending delivery is cleared.
    expect(again).toHaveLength(2);
    expect(again[1]).toMatch(/^with pending as \(delete from event_deliveries/);
  });

  it('releases a commitment whose conversion commits while the validation waits on it (two ledger instances side by side)', async () => {
    // Two instances of the ledger, one applying a conversion, the other the validation of the same
    // invoice. The validation's statement waits on the conversion's uncommitted commitment; once that
    // commits, the validation must release it, not leave it open because its snapshot predates it.
    const org = 43;
    const partner = (await create({ partnername: 'Race Co', credit_limit: 0 }, org)).id as number;
    const e = (type: string, data: Record<string, unknown>): EventEnvelope => ({
      id: randomUUID(),
      type,
      occurred_at: '2026-03-01T10:00:00',
      org_id: org,
      data,
    });
    const log = createLogger('test', 'silent');
    const { release: commitConversion, held } = holdTransaction();
    let converted!: () => void;
    const conversionApplied = new Promise<void>((resolve) => (converted = resolve));
    const conversion = svc.db.transaction(async (trx) => {
      await applyInboxBatch(ledgerConsumer, trx, [e('sales.quotation.converted', convertedData(partner, 801, 77.7))], log);
      converted();
      await held;
    });
    await conversionApplied;
    const validation = applyInboxBatch(
      ledgerConsumer,
      svc.db,
      [e('invoicing.invoice.validated', validatedData(partner, 801, 'invoiceout', 77.7))],
      log,
    );
    await waitForLockWait(svc, 'commitments');
    commitConversion();
    await Promise.all([conversion, validation]);

    expect(await svc.db('commitments').where({ org_id: org }).select('invoice_id', 'amount', 'status')).toEqual([
      { invoice_id: 801, amount: '77.7', status: 'released' },
    ]);
    expect(await svc.db('partners').where({ org_id: org, id: partner }).select('balance', 'committed').first()).toEqual({
      balance: '77.7',
      committed: '0',
    });
  });

  it("weighs a partner's figures with the balances another instance committed while this one waited for the partner", async () => {
    // Two instances each apply a conversion of the same partner, in different currencies. The second
    // waits for the first's lock on the partner; once the first commits, the second must weigh the
    // partner's committed amount with the first's currency too, not from balances read before it waited.
    const org = 44;
    const partner = (await create({ partnername: 'Two Currencies Co', credit_limit: 0 }, org)).id as number;
    const e = (data: Record<string, unknown>): EventEnvelope => ({
      id: randomUUID(),
      type: 'sales.quotation.converted',
      occurred_at: '2026-03-01T10:00:00',
      org_id: org,
      data,
    });
    const log = createLogger('test', 'silent');
    const { release, held } = holdTransaction();
    let applied!: () => void;
    const firstApplied = new Promise<void>((resolve) => (applied = resolve));
    const first = svc.db.transaction(async (trx) => {
      await applyInboxBatch(ledgerConsumer, trx, [e({ ...convertedData(partner, 811, 10), currency: 'USD' })], log);
      applied();
      await held;
    });
    await firstApplied;
    const second = applyInboxBatch(ledgerConsumer, svc.db, [e({ ...convertedData(partner, 812, 20), currency: 'GBP' })], log);
    await waitForLockWait(svc, 'partner');
    release();
    await Promise.all([first, second]);

    expect(await svc.db('partner_balances').where({ org_id: org }).select('currency', 'committed').orderBy('currency')).toEqual([
      { currency: 'GBP', committed: '20' },
      { currency: 'USD', committed: '10' },
    ]);
    expect(await svc.db('partners').where({ org_id: org, id: partner }).select('committed').first()).toEqual({ committed: '30' });
  });

  it("weighs an edit of the partner's currency with the balances a ledger batch committed while the edit waited for it", async () => {
    // A ledger batch holds the partner's lock and adds a GBP conversion; an edit of the partner's
    // currency waits for it. Once the batch commits, the edit must weigh the partner's figures with
    // the GBP balance too, not with the balances as they stood before it waited.
    const org = 45;
    const partner = (await create({ partnername: 'Edit Race Co', credit_limit: 0, currency: 'GBP' }, org)).id as number;
    const log = createLogger('test', 'silent');
    const { release, held } = holdTransaction();
    let applied!: () => void;
    const batchApplied = new Promise<void>((resolve) => (applied = resolve));
    const batch = svc.db.transaction(async (trx) => {
      const event: EventEnvelope = {
        id: randomUUID(),
        type: 'sales.quotation.converted',
        occurred_at: '2026-03-01T10:00:00',
        org_id: org,
        data: { ...convertedData(partner, 821, 20), currency: 'GBP' },
      };
      await applyInboxBatch(ledgerConsumer, trx, [event], log);
      applied();
      await held;
    });
    await batchApplied;
    const edit = svc.call('partners.partner.edit', { action: 'edit', partner_id: partner, currency: 'USD' }, org);
    await waitForLockWait(svc, 'partner');
    release();
    await batch;
    const edited = body(await edit).partner;

    // No USD document was ever posted, so GBP cannot be weighed into USD: it counts as it is.
    expect(edited).toMatchObject({ currency: 'USD', committed: 20 });
    expect(await svc.db('partners').where({ org_id: org, id: partner }).select('committed').first()).toEqual({ committed: '20' });
  });

  it('keeps a structured address beside the free-text one, and counts every change in version', async () => {
    const seen = await svc.collect(['partners.partner.created', 'partners.partner.updated', 'partners.partner.deleted']);
    const p = await create({
      partnername: 'Hooli',
      address: '1 Main St\nSpringfield',
      address_line1: ' 1 Main St ',
      city: 'Springfield',
      postal_code: '12345',
      region: 'IL',
      country: 'us',
    });
    expect(p).toMatchObject({
      address: '1 Main St\nSpringfield',
      address_line1: '1 Main St',
      address_line2: null,
      city: 'Springfield',
      postal_code: '12345',
      region: 'IL',
      country: 'US',
      version: 1,
    });
    const edited = body(
      await svc.call('partners.partner.edit', { action: 'edit', partner_id: p.id, address_line2: 'Suite 4', region: '', country: 'CA' }),
    ).partner;
    expect(edited).toMatchObject({ address_line1: '1 Main St', address_line2: 'Suite 4', region: null, country: 'CA', version: 2 });
    const listed = body(await svc.call('partners.partner.list', { search: 'Hooli' })).partners;
    expect(listed).toEqual([edited]);
    expect(body(await svc.call('partners.partner.get', { partner_id: p.id })).partner).toEqual(edited);
    body(await svc.call('partners.partner.delete', { action: 'delete', partner_id: p.id }));
    await waitFor(() => seen.filter((e) => e.data['id'] === p.id).length === 3);
    const events = seen.filter((e) => e.data['id'] === p.id);
    expect(events.map((e) => [e.type, e.data['version'], e.data['country']])).toEqual([
      ['partners.partner.created', 1, 'US'],
      ['partners.partner.updated', 2, 'CA'],
      ['partners.partner.deleted', 3, 'CA'],
    ]);
  });

  it('lists the very records it answers one by one, whatever their text and amounts, filtered and paged', async () => {
    const made = [
      await create({ partnername: 'Zork "quoted" \\ back', notes: 'line\nbreak\ttab', credit_limit: '20.25', email: 'z@zork.test' }),
      await create({ partnername: 'Zork Ünïcode ✓ 😀', partner_type: 'vendor', credit_limit: '999999999999.99', phone: '+1 555' }),
      await create({ partnername: 'Zork 100% under_score', partner_type: 'both', credit_limit: '0.5' }),
    ];
    const one = async (id: number) => body(await svc.call('partners.partner.get', { partner_id: id })).partner;
    const newestFirst = await Promise.all([...made].reverse().map((p) => one(p.id)));
    const list = async (query: Record<string, unknown>) => body(await svc.call('partners.partner.list', query));

    const all = await list({ search: 'zork' });
    expect(all.partners).toEqual(newestFirst);
    expect(all).toMatchObject({ message: 'Partners retrieved successfully', pagination: { total_items: 3 } });
    expect((await list({ search: 'Zork', partner_type: 'vendor' })).partners.map((p: { id: number }) => p.id)).toEqual([
      made[2].id,
      made[1].id,
    ]);
    expect((await list({ search: '100%' })).partners).toEqual([newestFirst[0]]);
    const second = await list({ search: 'zork', page_size: 2, page_number: 2 });
    expect(second.partners).toEqual([newestFirst[2]]);
    expect(second.pagination).toMatchObject({ total_items: 3, total_pages: 2, has_next: false, has_previous: true });
    const past = await list({ search: 'zork', page_size: 2, page_number: 3 });
    expect(past).toMatchObject({ message: 'No partners found', partners: [], pagination: { total_items: 3 } });
    expect(body(await svc.call('partners.partner.list', { search: 'zork' }, 2)).partners).toEqual([]);
    expect(await list({ search: 'nothing like this' })).toMatchObject({
      message: 'No partners found',
      partners: [],
      pagination: { total_items: 0 },
    });
  });

  it('refuses a country that is not an ISO 3166-1 alpha-2 code', async () => {
    for (const country of ['XX', 'USA', 'UK']) {
      const reply = await svc.call('partners.partner.create', {
        action: 'create',
        partner_type: 'customer',
        partnername: 'Nowhere',
        country,
      });
      expect(reply).toMatchObject({ ok: false, status: 400, code: 'validation_failed', errors: [{ field: 'country' }] });
    }
    expect(await svc.db('partners').where({ partnername: 'Nowhere' })).toHaveLength(0);
  });

  it('keeps the bank accounts a partner has, normalized, answers them on create, edit and get, and replaces them on edit', async () => {
    const p = await create({
      partnername: 'Paying Customer',
      bank_accounts: [
        { iban: 'de89 3704 0044 0532 0130 00', bic: 'cobadeffxxx', name: ' Paying Customer GmbH ' },
        { iban: 'IE64IRCE92050112345678' },
      ],
    });
    expect(p.bank_accounts).toEqual([
      { iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', name: 'Paying Customer GmbH' },
      { iban: 'IE64IRCE92050112345678', bic: null, name: null },
    ]);
    expect(p.dunning_blocked).toBe(false);
    const edited = body(
      await svc.call('partners.partner.edit', {
        action: 'edit',
        partner_id: p.id,
        bank_accounts: [{ iban: 'IE64IRCE92050112345678' }],
        dunning_blocked: true,
      }),
    ).partner;
    expect(edited).toMatchObject({ bank_accounts: [{ iban: 'IE64IRCE92050112345678', bic: null, name: null }], dunning_blocked: true });
    // An edit that names neither keeps both.
    body(await svc.call('partners.partner.edit', { action: 'edit', partner_id: p.id, phone: '1' }));
    const got = body(await svc.call('partners.partner.get', { partner_id: p.id })).partner;
    expect(got).toMatchObject({ bank_accounts: [{ iban: 'IE64IRCE92050112345678' }], dunning_blocked: true });
    // The list answers the very record get does.
    const listed = body(await svc.call('partners.partner.list', { search: 'Paying Customer' })).partners;
    expect(listed).toEqual([got]);
  });

  it('refuses an IBAN whose checksum fails, naming its place in bank_accounts, and stores nothing', async () => {
    const reply = await svc.call('partners.partner.create', {
      action: 'create',
      partner_type: 'customer',
      partnername: 'Bad Account',
      bank_accounts: [{ iban: 'IE64IRCE92050112345678' }, { iban: 'DE89370400440532013001' }],
    });
    expect(reply).toMatchObject({ ok: false, status: 400, code: 'validation_failed', errors: [{ field: 'bank_accounts.1.iban' }] });
    expect(await svc.db('partners').where({ partnername: 'Bad Account' })).toHaveLength(0);
  });

  describe('deleting a partner', () => {
    const validatedFor = (partnerId: number, invoiceId: number, total: number) => ({
      invoice_id: invoiceId,
      invoicenumber: `INV-${invoiceId}`,
      invoicetype: 'invoiceout',
      partner_id: partnerId,
      invoicetotal: total,
      journal_entry_id: invoiceId,
      invoicedatetime: '2026-03-01T10:00:00',
      invoicedue: null,
      validated_at: '2026-03-01T10:00:00',
      sourcetype: null,
      sourceid: null,
      sourcenumber: null,
    });

    it('is refused while the partner owes money, naming the balance, and allowed once it is settled', async () => {
      const p = await create({ partnername: 'Owes Co' });
      await svc.publish('invoicing.invoice.validated', 1, validatedFor(p.id, 9001, 80));
      await waitFor(async () => body(await svc.call('partners.partner.balance', { partner_id: p.id })).partner.balance === 80);
      const refused = await svc.call('partners.partner.delete', { action: 'delete', partner_id: p.id });
      expect(refused).toMatchObject({
        ok: false,
        status: 400,
        code: 'validation_failed',
        message: `Partner ${p.id} cannot be deleted: its balance is 80.00, not zero`,
        errors: [{ field: 'partner_id' }],
      });
      expect((await svc.db('partners').where({ id: p.id }).first()).deleted_at).toBeNull();
      await svc.publish('invoicing.invoice.payment_registered', 1, {
        ...validatedFor(p.id, 9001, 80),
        payment_id: 9001,
        amount: 80,
        payment_date: '2026-03-02',
        journal: null,
        amount_paid: 80,
        due_amount: 0,
      });
      await waitFor(async () => body(await svc.call('partners.partner.balance', { partner_id: p.id })).partner.balance === 0);
      body(await svc.call('partners.partner.delete', { action: 'delete', partner_id: p.id }));
    });

    it('is refused while sales or invoicing hold open documents or active contracts, naming them', async () => {
      const p = await create({ partnername: 'Busy Co' });
      documents.set('sales', 1, p.id, {
        open_documents: 1,
        active_contracts: 0,
        documents: [{ kind: 'quotation', id: 5, number: 'QUO-00005', type: 'quotation', status: 'sent' }],
      });
      documents.set('invoicing', 1, p.id, {
        open_documents: 1,
        active_contracts: 1,
        documents: [
          { kind: 'invoice', id: 7, number: 'INV-00007', type: 'invoiceout', status: 'draft' },
          { kind: 'recurring_contract', id: 8, number: 'INV-00008', type: 'invoiceout', status: 'active' },
        ],
      });
      const refused = await svc.call('partners.partner.delete', { action: 'delete', partner_id: p.id });
      expect(refused).toMatchObject({
        ok: false,
        status: 400,
        message: `Partner ${p.id} cannot be deleted: it has 2 open documents: QUO-00005 (sent), INV-00007 (draft); it has 1 active recurring contract: INV-00008 (active)`,
      });
      expect(documents.asked()).toEqual(expect.arrayContaining([`sales:1:${p.id}`, `invoicing:1:${p.id}`]));
      documents.set('sales', 1, p.id, { open_documents: 0, active_contracts: 0, documents: [] });
      documents.set('invoicing', 1, p.id, { open_documents: 0, active_contracts: 0, documents: [] });
      body(await svc.call('partners.partner.delete', { action: 'delete', partner_id: p.id }));
    });

    it('stores a delete decided on an unlocked read only while the partner is as read and the fence stands', async () => {
      const later = Date.now() + 60_000;
      const moved = await create({ partnername: 'Moved Co' });
      const read = (await readDeleteTarget(svc.db, 1, moved.id))!;
      expect(read).toEqual({ version: expect.any(String), balances: [] });
      // The ledger rewrote its figures meanwhile (every balance move does): the delete stores nothing.
      await svc.db('partners').where({ id: moved.id }).update({ balance: '0' });
      const write = (id: number, version: string, commitBy: number) => ({
        ...partnerDeleteAlone(1, id, { version, userId: 'u1', commitBy }),
        events: [],
        reply: {},
      });
      const answer = { ok: true as const, status: 200, body: {} };
      await expect(storeAlone(svc.db, write(moved.id, read.version, later), undefined, answer)).rejects.toBeInstanceOf(NotAsDecided);
      // Past the fence the document services hold, it stores nothing either, whatever it read.
      const late = await create({ partnername: 'Late Co' });
      const lateRead = (await readDeleteTarget(svc.db, 1, late.id))!;
      await expect(storeAlone(svc.db, write(late.id, lateRead.version, Date.now() - 1), undefined, answer)).rejects.toBeInstanceOf(
        NotAsDecided,
      );
      expect(await svc.db('partners').whereIn('id', [moved.id, late.id]).whereNotNull('deleted_at')).toEqual([]);
    });

    it('deletes in one statement, its event the record as stored', async () => {
      const seen = await svc.collect(['partners.partner.deleted']);
      const p = await create({ partnername: 'Gone Co', phone: '1' });
      const statements: string[] = [];
      const count = (q: { sql: string }) => statements.push(q.sql);
      svc.db.on('query', count);
      try {
        body(await svc.call('partners.partner.delete', { action: 'delete', partner_id: p.id }));
      } finally {
        svc.db.off('query', count);
      }
      const writes = statements.filter((sql) => /update\s+"?partners"?/i.test(sql));
      expect(writes).toHaveLength(1);
      expect(writes[0]).toMatch(/insert into outbox/);
      expect(statements.some((sql) => /^(begin|commit)/i.test(sql))).toBe(false);
      const row = await svc.db('partners').where({ id: p.id }).first();
      expect(row).toMatchObject({ deleted_at: expect.any(Date), version: 2 });
      await waitFor(() => seen.some((e) => e.data['id'] === p.id));
      // What the record keeps, and what the locked way's event (toPartnerRecord of the row) carries.
      const data = seen.find((e) => e.data['id'] === p.id)!.data;
      expect(data).toEqual(JSON.parse(row.record_json));
      expect(data).toEqual(toPartnerRecord(row));
    });
  });

  it('lists each partner as it answers it alone after edits, a deletion and ledger events moved its amounts', async () => {
    // The list reads the records PostgreSQL keeps with each row (record_json): every kind of write
    // (create, edit, delete, the ledger's batched balance and committed updates) must leave them current.
    const org = 7;
    const [kept, edited, deleted] = [
      await create({ partnername: 'Kept', credit_limit: 900 }, org),
      await create({ partnername: 'Edited' }, org),
      await create({ partnername: 'Deleted' }, org),
    ];
    body(await svc.call('partners.partner.edit', { action: 'edit', partner_id: edited.id, notes: 'now "noted"', phone: '+44 1' }, org));
    body(await svc.call('partners.partner.delete', { action: 'delete', partner_id: deleted.id }, org));
    await svc.publish('invoicing.invoice.validated', org, validatedData(kept.id, 7001, 'invoiceout', 123.45));
    await svc.publish('sales.quotation.converted', org, convertedData(edited.id, 7002, 60.5));
    const one = async (id: number) => body(await svc.call('partners.partner.get', { partner_id: id }, org)).partner;
    await waitFor(async () => (await one(kept.id)).balance === 123.45 && (await one(edited.id)).committed === 60.5);

    const listed = body(await svc.call('partners.partner.list', {}, org)).partners;
    expect(listed).toEqual([await one(edited.id), await one(kept.id)]);
    expect(listed).toMatchObject([{ notes: 'now "noted"', phone: '+44 1', committed: 60.5, version: 2 }, { balance: 123.45 }]);
  });

  it("answers a document's parties as get answers each, and the credit as the balance view weighs it, whichever is missing", async () => {
    const org = 8;
    const parties = async (partner_id: number, include_credit?: boolean) =>
      body(await svc.call('partners.document.parties', { partner_id, ...(include_credit === undefined ? {} : { include_credit }) }, org));
    const profile = async () => body(await svc.call('partners.organization.get', {}, org)).organization;

    // Neither the profile nor the partner exists yet.
    expect(await parties(999_999, true)).toEqual({
      message: 'The organization profile; the partner is not found',
      organization: await profile(),
      partner: null,
      credit: null,
    });

    const png = makePng({ width: 3, height: 2 });
    body(
      await svc.call(
        'partners.organization.set',
        { legal_name: 'Parties GmbH', time_zone: 'Europe/Berlin', logo_png: png.toString('base64') },
        org,
      ),
    );
    const partner = await create({ partnername: 'Parties Customer', credit_limit: '1000.5', currency: 'EUR' }, org);
    await svc.publish('invoicing.invoice.validated', org, validatedData(partner.id, 8001, 'invoiceout', 200.25));
    const get = async () => body(await svc.call('partners.partner.get', { partner_id: partner.id }, org)).partner;
    await waitFor(async () => (await get()).balance === 200.25);

    const answered = await parties(partner.id, true);
    const balance = body(await svc.call('partners.partner.balance', { partner_id: partner.id }, org)).partner;
    expect(answered.organization).toEqual(await profile());
    expect(answered.organization).toMatchObject({ legal_name: 'Parties GmbH', logo_png: png.toString('base64'), logo_bytes: png.length });
    expect(answered.partner).toEqual(await get());
    expect(answered.credit).toMatchObject({ balance: balance.balance, credit_limit: 1000.5, available_credit: 800.25, currency: 'EUR' });
    expect((await parties(partner.id)).credit).toBeNull();

    // Another organization's partner, and a deleted one, are not found; the profile still is.
    expect(body(await svc.call('partners.document.parties', { partner_id: partner.id, include_credit: true }, org + 1))).toMatchObject({
      partner: null,
      credit: null,
    });
    const gone = await create({ partnername: 'Gone' }, org);
    body(await svc.call('partners.partner.delete', { action: 'delete', partner_id: gone.id }, org));
    expect(await parties(gone.id, true)).toMatchObject({ organization: await profile(), partner: null, credit: null });
  });

  it('dead-letters an event it can never apply, after its retries', async () => {
    await svc.publish('invoicing.invoice.validated', 1, { invoice_id: 'not a number' });
    await waitFor(async () => (await svc.queueDepth('partners.ledger.dead')) === 1, 15_000);
  });
});

const waitFor = (check: () => boolean | Promise<boolean>, timeoutMs?: number) => testing.waitUntil(check, { timeoutMs });

/** A transaction kept open until `release` is called, so another can be made to wait on its locks. */
const holdTransaction = () => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  return { release, held };
};

/** Until a statement of this database that names `table` waits on a lock another transaction holds. */
const waitForLockWait = (svc: testing.TestService, table: string) =>
  waitFor(async () => {
    const { rows } = await svc.db.raw(
      `select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query ilike ?`,
      [`%${table}%`],
    );
    return rows.length > 0;
  });
