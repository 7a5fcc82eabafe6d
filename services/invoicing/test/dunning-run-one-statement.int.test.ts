import { NotAsDecided, statementEvent, storeAlone } from '@bo/runtime';
import { invoicing } from '@bo/contracts';
import * as testing from '@bo/testkit';
import { decideDunning } from '../src/dunning/decide-dunning';
import { lettersToStore, readWithPartners, storedRecords } from '../src/dunning/decide-run';
import { feesOf, interestOf, lettersAlone, readDunningRun } from '../src/dunning/dunning.repository';
import { body, startWithFakePartners, type FakePartner } from './fixtures';

// A reminder run with no fee invoice to post, decided on an unlocked read and stored as one
// statement: a store whose read went stale (an invoice paid or disputed, the levels set, a letter
// taken by another run) writes nothing, and the service then goes the locked way; what the service
// answers and announces is what it stored; runs racing send each letter once.
const answer = { ok: true as const, status: 200, body: {} };
const LEVELS = [
  { level: 1, days_after_due: 7, fee: '0', interest: false, text: 'Friendly reminder' },
  { level: 2, days_after_due: 21, fee: '5.00', interest: true, text: 'Second reminder' },
];
const partnersTable: FakePartner[] = [1, 2, 3].flatMap((org) => [
  { org, id: 10, partnername: 'Acme', credit_limit: 0, balance: 0, record: { currency: 'EUR' } },
  { org, id: 11, partnername: 'Beta', credit_limit: 0, balance: 0, record: { currency: 'EUR' } },
]);
const line = (price: number) => ({ product_id: 7, quantity: 1, price, tax_rate: 0, tax_included: false });
const notBlocked = new Map([
  [10, { blocked: false }],
  [11, { blocked: false }],
]);

describe('invoicing service: a dunning run as one statement', () => {
  let svc: testing.TestService;
  let events: Awaited<ReturnType<testing.TestService['collect']>>;
  const call = (operation: string, payload: Record<string, unknown>, org: number) => svc.call(operation, { userid: '5', ...payload }, org);
  const run = (org: number, as_of: string) => call('invoicing.dunning.run', { action: 'run', as_of }, org);
  async function issued(org: number, partner: number, price: number): Promise<number> {
    const inv = body(
      await call(
        'invoicing.invoice.create',
        { invoicetype: 'invoiceout', partner, invoicedatetime: '2026-01-01T09:00:00', invoicedue: '2026-01-31', line_items: [line(price)] },
        org,
      ),
    ).invoice;
    body(await call('invoicing.invoice.validate', { validate_invoice: true, id: inv.id }, org));
    return inv.id as number;
  }
  const sentInOutbox = async (org: number) =>
    Number(
      (await svc.db('outbox').where({ type: 'invoicing.dunning.sent', org_id: org }).count<Array<{ count: string }>>('* as count'))[0]!
        .count,
    );
  const letterCount = async (org: number) =>
    Number((await svc.db('dunning_letters').where({ org_id: org }).count<Array<{ count: string }>>('* as count'))[0]!.count);

  /** The run's one statement as `alone` decides it on a read taken now, to store later. */
  async function decidedNow(org: number, asOf: string) {
    const read = readWithPartners(await readDunningRun(svc.db, org, asOf, { draw: true }), notBlocked);
    const decision = decideDunning({
      asOf,
      levels: read.setup.levels,
      interest: interestOf(read.setup.settings),
      invoices: read.invoices,
      fees: feesOf(read.setup.settings),
    });
    const letters = lettersToStore(decision, read.drawn, read.reads)!;
    expect(letters).toBeDefined();
    const stored = storedRecords(letters, asOf);
    return {
      letters,
      store: () =>
        storeAlone(
          svc.db,
          {
            ...lettersAlone(org, asOf, letters, read.setupRead),
            events: stored.map((r) => statementEvent(invoicing.dunningSent, org, r)),
            reply: {},
          },
          undefined,
          answer,
        ),
    };
  }

  beforeAll(async () => {
    ({ svc } = await startWithFakePartners(partnersTable));
    events = await svc.collect(['invoicing.dunning.sent']);
    for (const org of [1, 2, 3])
      body(await call('invoicing.dunning.levels', { action: 'levels', levels: LEVELS, reference_rate: '4.5' }, org));
  });
  afterAll(() => svc.stop());

  it('a store decided on a read writes nothing once an invoice was paid or disputed, the levels set, or a letter taken since', async () => {
    const org = 1;
    const paid = await issued(org, 10, 300);
    const disputed = await issued(org, 10, 400);
    const other = await issued(org, 11, 500);
    const unchanged = async (letters: number) => {
      expect(await letterCount(org)).toBe(letters);
      expect(await sentInOutbox(org)).toBe(0);
    };

    // Paid in part since the read: the letter would state the old amount due.
    const beforePayment = await decidedNow(org, '2026-02-07');
    expect(beforePayment.letters.map((l) => l.plan.invoice_id)).toEqual([paid, disputed, other]);
    body(
      await call(
        'invoicing.payment.create',
        {
          action: 'create',
          partner: 10,
          amount: '100.00',
          currency: 'EUR',
          direction: 'in',
          payment_date: '2026-01-15',
          allocations: [{ invoice_id: paid, amount: '100.00' }],
        },
        org,
      ),
    );
    await expect(beforePayment.store()).rejects.toBeInstanceOf(NotAsDecided);
    await unchanged(0);

    // Disputed since the read: no letter while the customer contests it.
    const beforeDispute = await decidedNow(org, '2026-02-07');
    body(await call('invoicing.dunning.dispute', { action: 'dispute', invoice_id: disputed, disputed: true, reason: 'Damaged' }, org));
    await expect(beforeDispute.store()).rejects.toBeInstanceOf(NotAsDecided);
    await unchanged(0);

    // The levels set since the read (level 1 now 10 days after the due date): the letters decided on the old ones are not sent.
    const beforeLevels = await decidedNow(org, '2026-02-07');
    expect(beforeLevels.letters.map((l) => l.plan.invoice_id)).toEqual([paid, other]);
    body(await call('invoicing.dunning.levels', { action: 'levels', levels: [{ ...LEVELS[0], days_after_due: 10 }, LEVELS[1]] }, org));
    await expect(beforeLevels.store()).rejects.toBeInstanceOf(NotAsDecided);
    await unchanged(0);
    body(await call('invoicing.dunning.levels', { action: 'levels', levels: LEVELS }, org));

    // Another run took one of the letters since the read: none of this store's is written or announced.
    const beforeRun = await decidedNow(org, '2026-02-07');
    const first = await svc.db.transaction();
    await first('dunning_letters').insert({
      org_id: org,
      invoice_id: other,
      partner_id: 11,
      level: 1,
      as_of: '2026-02-07',
      due_date: '2026-01-31',
      currency: 'EUR',
      due_amount: '500',
      days_overdue: 7,
      fee: '0',
      interest: '0',
      total: '500',
      text: 'taken by another run',
    });
    await first.commit();
    await expect(beforeRun.store()).rejects.toBeInstanceOf(NotAsDecided);
    await unchanged(1);

    // Through the service the run goes on: the letter left to send, stored and announced once.
    const sent = body(await run(org, '2026-02-07'));
    expect(sent.letters.map((l: { invoice_id: number; due_amount: number }) => [l.invoice_id, l.due_amount])).toEqual([[paid, 200]]);
    expect(sent.skipped).toEqual([
      { invoice_id: disputed, reason: 'disputed' },
      { invoice_id: other, reason: 'not_yet_due' },
    ]);
    expect(await letterCount(org)).toBe(2);
    expect(await sentInOutbox(org)).toBe(1);
  });

  it('through the service, the reply and the events are the letters as stored', async () => {
    const org = 2;
    const invoices = [await issued(org, 10, 1000), await issued(org, 10, 250), await issued(org, 11, 80)];
    const first = body(await run(org, '2026-02-07'));
    const second = body(await run(org, '2026-02-21'));
    for (const [reply, level] of [
      [first, 1],
      [second, 2],
    ] as const) {
      expect(reply.letters.map((l: { invoice_id: number; level: number }) => [l.invoice_id, l.level])).toEqual(
        invoices.map((id) => [id, level]),
      );
      const listed = body(await call('invoicing.dunning.list', { action: 'list', level }, org)).letters as Array<{ id: number }>;
      expect(reply.letters).toEqual([...listed].sort((x, y) => x.id - y.id));
      await testing.waitUntil(() => events.filter((e) => e.org_id === org && e.data.level === level).length >= 3);
      expect(events.filter((e) => e.org_id === org && e.data.level === level).map((e) => e.data)).toEqual(reply.letters);
    }
    // 1,000.00 × 12.5 % × 21 / 365 = 7.19, and the fee stated on the letter.
    expect(second.letters[0]).toMatchObject({ days_overdue: 21, interest_rate: 12.5, interest: 7.19, fee: 5, total: 1012.19 });
    expect(await sentInOutbox(org)).toBe(6);
    // Run again, nothing more.
    expect(body(await run(org, '2026-02-21')).letters).toEqual([]);
    expect(await letterCount(org)).toBe(6);
  });

  it('runs racing on one date send each letter once: the letters answered, stored and announced are the same', async () => {
    const org = 3;
    const invoices = [await issued(org, 10, 100), await issued(org, 10, 200), await issued(org, 11, 300), await issued(org, 11, 400)];
    for (const asOf of ['2026-02-07', '2026-02-21']) {
      const replies = await Promise.all([run(org, asOf), run(org, asOf), run(org, asOf)]);
      const answered = replies.flatMap((r) => body(r).letters as Array<{ id: number; invoice_id: number; level: number }>);
      const level = asOf === '2026-02-07' ? 1 : 2;
      expect(answered.map((l) => l.invoice_id).sort((x, y) => x - y)).toEqual(invoices);
      expect(answered.every((l) => l.level === level)).toBe(true);
      const stored = await svc.db('dunning_letters').where({ org_id: org, level }).orderBy('id').select('id');
      expect(answered.map((l) => l.id).sort((x, y) => x - y)).toEqual(stored.map((r: { id: number }) => r.id));
      await testing.waitUntil(() => events.filter((e) => e.org_id === org && e.data.level === level).length >= 4);
    }
    // Each announced once: one outbox row per letter (what the relay publishes), and the events received so far each once.
    const announced = events.filter((e) => e.org_id === org).map((e) => `${String(e.data.invoice_id)}:${String(e.data.level)}`);
    expect(announced.sort()).toEqual(invoices.flatMap((id) => [`${id}:1`, `${id}:2`]).sort());
    expect(await sentInOutbox(org)).toBe(8);
    expect(await letterCount(org)).toBe(8);
  });
});
