import type { RpcReply } from '@bo/contracts';
import * as testing from '@bo/testkit';
import { einvoiceFailures, prepareRules } from '../../../tests/support/einvoice';
import { pdfText } from '../../../tests/support/pdf';
import { setAccountingCurrency } from './books.fixtures';
import { body, startWithFakePartners, type FakePartner } from './fixtures';

// Reminders (docs/dunning.md) over real PostgreSQL and RabbitMQ: levels 1, 2 and 3 at three dates,
// once each per invoice, with the interest and fees of the worked examples; a blocked partner gets
// none; two runs racing on one date store and announce each letter once.
const partnersTable: FakePartner[] = [
  { org: 1, id: 10, partnername: 'Acme', credit_limit: 0, balance: 0, record: { currency: 'EUR' } },
  { org: 1, id: 11, partnername: 'Blocked GmbH', credit_limit: 0, balance: 0, record: { currency: 'EUR', dunning_blocked: true } },
  {
    org: 4,
    id: 20,
    partnername: 'Contesting SARL',
    credit_limit: 0,
    balance: 0,
    record: { currency: 'EUR', address_line1: '2 Rue Neuve', city: 'Lyon', postal_code: '69001', country: 'FR' },
  },
  { org: 6, id: 40, partnername: 'Dollar Buyer Inc', credit_limit: 0, balance: 0, record: { currency: 'USD' } },
  {
    org: 5,
    id: 30,
    partnername: 'Slow Payer BV',
    credit_limit: 100,
    balance: 0,
    record: {
      currency: 'EUR',
      address_line1: 'Kade 4',
      city: 'Rotterdam',
      postal_code: '3011 AA',
      country: 'NL',
      tax_number: 'NL123456789B01',
      email: 'ap@slowpayer.test',
    },
  },
];
const line = (price: number) => ({ product_id: 7, quantity: 1, price, tax_rate: 0, tax_included: false });
const LEVELS = [
  { level: 1, days_after_due: 7, fee: '0', interest: false, text: 'Friendly reminder' },
  { level: 2, days_after_due: 21, fee: '5.00', interest: true, text: 'Second reminder' },
  { level: 3, days_after_due: 35, fee: '10.00', interest: true, text: 'Final notice' },
];

describe('invoicing service: dunning', () => {
  let svc: testing.TestService;
  let state: Awaited<ReturnType<typeof startWithFakePartners>>['state'];
  let events: Awaited<ReturnType<testing.TestService['collect']>>;
  let a: number; // 1,000.00 due 2026-01-31
  let d: number; // 300.00 due 2026-01-31, 100.00 paid: 200.00 due
  let blocked: number; // 500.00 of the blocked partner

  const call = (operation: string, payload: Record<string, unknown>) => svc.call(operation, { userid: '5', ...payload }, 1);
  const run = (as_of: string, dry_run?: boolean) =>
    call('invoicing.dunning.run', { action: 'run', as_of, ...(dry_run ? { dry_run } : {}) });
  async function issued(partner: number, price: number): Promise<number> {
    const inv = body(
      await call('invoicing.invoice.create', {
        invoicetype: 'invoiceout',
        partner,
        invoicedatetime: '2026-01-01T09:00:00',
        invoicedue: '2026-01-31',
        line_items: [line(price)],
      }),
    ).invoice;
    body(await call('invoicing.invoice.validate', { validate_invoice: true, id: inv.id }));
    return inv.id as number;
  }
  async function refusedUnchanged(send: () => Promise<RpcReply>, field: string) {
    const before = await testing.schemaSnapshot(svc.db, svc.schema);
    const reply = (await send()) as { ok: boolean; status: number; errors?: Array<{ field: string }> };
    expect(reply).toMatchObject({ ok: false, status: 400 });
    expect(reply.errors?.map((e) => e.field)).toContain(field);
    expect(await testing.schemaSnapshot(svc.db, svc.schema)).toEqual(before);
  }
  const brief = (letters: Array<Record<string, unknown>>) =>
    letters.map((l) => ({
      invoice_id: l.invoice_id,
      level: l.level,
      days_overdue: l.days_overdue,
      interest: l.interest,
      fee: l.fee,
      total: l.total,
    }));

  beforeAll(async () => {
    prepareRules();
    ({ svc, state } = await startWithFakePartners(partnersTable));
    events = await svc.collect(['invoicing.dunning.sent']);
    a = await issued(10, 1000);
    d = await issued(10, 300);
    blocked = await issued(11, 500);
    body(
      await call('invoicing.payment.create', {
        action: 'create',
        partner: 10,
        amount: '100.00',
        currency: 'EUR',
        direction: 'in',
        payment_date: '2026-01-15',
        allocations: [{ invoice_id: d, amount: '100.00' }],
      }),
    );
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('refuses levels with a gap and points below 8, changing nothing', async () => {
    await refusedUnchanged(
      () => call('invoicing.dunning.levels', { action: 'levels', levels: [LEVELS[0], { ...LEVELS[2], level: 3 }] }),
      'levels',
    );
    await refusedUnchanged(
      () => call('invoicing.dunning.levels', { action: 'levels', levels: LEVELS, reference_rate: '4.5', points: '7' }),
      'points',
    );
    await refusedUnchanged(
      () => call('invoicing.dunning.levels', { action: 'levels', levels: [LEVELS[0], { ...LEVELS[1], days_after_due: 7 }] }),
      'levels',
    );
  });

  it('sets the levels and the rate: 4.5 % reference + 8 points', async () => {
    const set = body(await call('invoicing.dunning.levels', { action: 'levels', levels: LEVELS, reference_rate: '4.5' }));
    expect(set).toMatchObject({ reference_rate: 4.5, points: 8 });
    expect(set.levels.map((l: { level: number; fee: number }) => [l.level, l.fee])).toEqual([
      [1, 0],
      [2, 5],
      [3, 10],
    ]);
    expect(body(await call('invoicing.dunning.levels', { action: 'levels' })).levels).toEqual(set.levels);
  });

  it('two level settings racing both take effect: the levels of one, the points of the other, neither refused', async () => {
    // Another organization's levels, so the runs below keep theirs. A transaction of the test holds
    // its level rows while the first set (new levels) and then the second (points only) wait behind
    // it; the second read the levels and the rate before the first stored its own.
    const org = 3;
    const levelsOf = (payload: Record<string, unknown>) =>
      svc.call('invoicing.dunning.levels', { userid: '5', action: 'levels', ...payload }, org);
    body(await levelsOf({ levels: LEVELS, reference_rate: '4.5' }));
    const holder = await svc.db.transaction();
    await holder.raw('select 1 from dunning_levels where org_id = ? for update', [org]);
    const waiting = (n: number) =>
      testing.waitUntil(async () => {
        const { rows } = await svc.db.raw<{ rows: Array<{ waiting: number }> }>(
          `select count(*)::int as waiting from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock' and query ilike '%dunning_%'`,
        );
        return rows[0]!.waiting >= n;
      });
    const newLevels = levelsOf({ levels: LEVELS.slice(0, 2) });
    await waiting(1);
    const newPoints = levelsOf({ points: '9' });
    await waiting(2);
    await holder.commit();
    const replies = await Promise.all([newLevels, newPoints]);

    expect(replies.map((r) => r.ok)).toEqual([true, true]);
    const now = body(await levelsOf({}));
    expect(now).toMatchObject({ reference_rate: 4.5, points: 9 });
    expect(now.levels.map((l: { level: number }) => l.level)).toEqual([1, 2]);
  });

  it('a dry run answers the letters and stores nothing', async () => {
    const before = await testing.schemaSnapshot(svc.db, svc.schema);
    const reply = body(await run('2026-02-07', true));
    expect(reply.dry_run).toBe(true);
    expect(reply.letters.map((l: { id: number | null; invoice_id: number }) => [l.id, l.invoice_id])).toEqual([
      [null, a],
      [null, d],
    ]);
    expect(await testing.schemaSnapshot(svc.db, svc.schema)).toEqual(before);
  });

  it('level 1 on 2026-02-07 (7 days): no fee, no interest; the blocked partner is skipped; a repeat sends nothing', async () => {
    const first = body(await run('2026-02-07'));
    expect(brief(first.letters)).toEqual([
      { invoice_id: a, level: 1, days_overdue: 7, interest: 0, fee: 0, total: 1000 },
      { invoice_id: d, level: 1, days_overdue: 7, interest: 0, fee: 0, total: 200 },
    ]);
    expect(first.skipped).toEqual([{ invoice_id: blocked, reason: 'partner_blocked' }]);
    const again = body(await run('2026-02-07'));
    expect(again.letters).toEqual([]);
    expect(again.skipped).toEqual(
      expect.arrayContaining([
        { invoice_id: a, reason: 'not_yet_due' },
        { invoice_id: d, reason: 'not_yet_due' },
      ]),
    );
  });

  it('level 2 on 2026-02-21 (21 days): two runs racing store and announce each letter once', async () => {
    // A transaction of the test holds the key (a, level 2) until both runs wait on it inside their
    // own transactions: both decided to send level 2, and only the unique key stands between them.
    const holder = await svc.db.transaction();
    await holder('dunning_letters').insert({
      org_id: 1,
      invoice_id: a,
      partner_id: 10,
      level: 2,
      as_of: '2026-02-21',
      due_date: '2026-01-31',
      currency: 'EUR',
      due_amount: '0',
      days_overdue: 0,
      fee: '0',
      interest: '0',
      total: '0',
      text: 'held by the test',
    });
    const racing = Promise.all([run('2026-02-21'), run('2026-02-21')]);
    // With no fee invoice to post, each run's insert is a part of its one statement (`with … insert into dunning_letters …`).
    await testing.waitUntil(async () => {
      const { rows } = await svc.db.raw<{ rows: Array<{ waiting: number }> }>(
        `select count(*)::int as waiting from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock' and query ilike '%insert into%dunning_letters%'`,
      );
      return rows[0]!.waiting >= 2;
    });
    await holder.rollback();
    const replies = await racing;
    const letters = replies.flatMap((r) => body(r).letters as Array<Record<string, unknown>>);
    // 1,000.00 × 12.5 % × 21 / 365 = 7.1917… → 7.19; 200.00 × 12.5 % × 21 / 365 = 1.4383… → 1.44.
    expect(brief(letters).sort((x, y) => Number(x.invoice_id) - Number(y.invoice_id))).toEqual([
      { invoice_id: a, level: 2, days_overdue: 21, interest: 7.19, fee: 5, total: 1012.19 },
      { invoice_id: d, level: 2, days_overdue: 21, interest: 1.44, fee: 5, total: 206.44 },
    ]);
    expect(letters.every((l) => l.interest_rate === 12.5)).toBe(true);
    const stored = await svc.db('dunning_letters').where({ org_id: 1, level: 2 });
    expect(stored).toHaveLength(2);
  });

  it('level 3 on 2026-03-07 (35 days), then nothing more', async () => {
    const third = body(await run('2026-03-07'));
    // 1,000.00 × 12.5 % × 35 / 365 = 11.9863… → 11.99; 200.00 × 12.5 % × 35 / 365 = 2.3972… → 2.40.
    expect(brief(third.letters)).toEqual([
      { invoice_id: a, level: 3, days_overdue: 35, interest: 11.99, fee: 10, total: 1021.99 },
      { invoice_id: d, level: 3, days_overdue: 35, interest: 2.4, fee: 10, total: 212.4 },
    ]);
    const later = body(await run('2026-04-30'));
    expect(later.letters).toEqual([]);
    expect(later.skipped).toEqual(
      expect.arrayContaining([
        { invoice_id: a, reason: 'last_level_sent' },
        { invoice_id: d, reason: 'last_level_sent' },
        { invoice_id: blocked, reason: 'partner_blocked' },
      ]),
    );
  });

  it('each letter was sent once: six letters, six events, listed by invoice', async () => {
    await testing.waitUntil(() => events.length >= 6);
    const sent = events.map((e) => `${String(e.data.invoice_id)}:${String(e.data.level)}`).sort();
    expect(sent).toEqual([`${a}:1`, `${a}:2`, `${a}:3`, `${d}:1`, `${d}:2`, `${d}:3`].sort());
    const listed = body(await call('invoicing.dunning.list', { action: 'list', invoice_id: a }));
    expect(listed.letters.map((l: { level: number; as_of: string }) => [l.level, l.as_of])).toEqual([
      [3, '2026-03-07'],
      [2, '2026-02-21'],
      [1, '2026-02-07'],
    ]);
    expect(listed.pagination.total_items).toBe(3);
  });

  it('with post_fees off (the default) the fees are stated on the letters only: no invoice is made', async () => {
    expect(body(await call('invoicing.dunning.levels', { action: 'levels' })).post_fees).toBe(false);
    const letters = await svc.db('dunning_letters').where({ org_id: 1 }).where('fee', '>', 0);
    expect(letters).toHaveLength(4);
    expect(letters.every((l: { fee_invoice_id: number | null }) => l.fee_invoice_id === null)).toBe(true);
    expect(await svc.db('invoices').where({ org_id: 1, sourcetype: 'dunning_letter' })).toEqual([]);
    expect(events.every((e) => e.data.fee_invoice_id === null)).toBe(true);
  });

  describe('post_fees: each fee a validated customer invoice of its own (organization 5)', () => {
    const org = 5;
    const call5 = (operation: string, payload: Record<string, unknown>) => svc.call(operation, { userid: '5', ...payload }, org);
    const run5 = (as_of: string) => call5('invoicing.dunning.run', { action: 'run', as_of });
    const report = (payload: Record<string, unknown>) => call5('invoicing.report.run', payload).then(body);
    const feeInvoices = () => svc.db('invoices').where({ org_id: org, sourcetype: 'dunning_letter' }).orderBy('id');
    let reminded: number; // 1,000.00 due 2026-01-31
    let feeInvoice: number;

    beforeAll(async () => {
      state.profiles.set(org, {
        ...testing.profileRecord(org),
        legal_name: 'Fees Ltd',
        address_line1: '1 Quay Street',
        city: 'Dublin',
        postal_code: 'D02 X285',
        country: 'IE',
        vat_id: 'IE6388047V',
        email: 'billing@fees.test',
        iban: 'IE29AIBK93115212345678',
      });
      const inv = body(
        await call5('invoicing.invoice.create', {
          invoicetype: 'invoiceout',
          partner: 30,
          invoicedatetime: '2026-01-01T09:00:00',
          invoicedue: '2026-01-31',
          line_items: [line(1000)],
        }),
      ).invoice;
      body(await call5('invoicing.invoice.validate', { validate_invoice: true, id: inv.id, override_credit_limit: true }));
      reminded = inv.id as number;
    });

    it('refuses a fee tax the EN 16931 rules refuse, naming the field and changing nothing', async () => {
      await refusedUnchanged(
        () => call5('invoicing.dunning.levels', { action: 'levels', post_fees: true, fee_tax: { category: 'E', rate: '0' } }),
        'fee_tax.exemption_reason',
      );
      await refusedUnchanged(
        () => call5('invoicing.dunning.levels', { action: 'levels', post_fees: true, fee_tax: { category: 'S', rate: '0' } }),
        'fee_tax.rate',
      );
    });

    it('sets post_fees with the levels, and shows it with the default fee tax', async () => {
      const set = body(
        await call5('invoicing.dunning.levels', { action: 'levels', levels: LEVELS, reference_rate: '4.5', post_fees: true }),
      );
      expect(set).toMatchObject({
        post_fees: true,
        fee_tax: { category: 'E', rate: 0, exemption_reason: expect.stringContaining('outside the scope of VAT'), exemption_code: null },
      });
      // A set of the rate alone keeps post_fees.
      expect(body(await call5('invoicing.dunning.levels', { action: 'levels', points: '8' })).post_fees).toBe(true);
    });

    it('level 1 has no fee: no invoice', async () => {
      const first = body(await run5('2026-02-07'));
      expect(first.letters.map((l: { level: number; fee_invoice_id: number | null }) => [l.level, l.fee_invoice_id])).toEqual([[1, null]]);
      expect(await feeInvoices()).toEqual([]);
    });

    it('level 2: two runs racing make one letter and one fee invoice, open, its total the fee, kept on the letter', async () => {
      // A transaction of the test holds the key (reminded, level 2) until both runs wait on it.
      const holder = await svc.db.transaction();
      await holder('dunning_letters').insert({
        org_id: org,
        invoice_id: reminded,
        partner_id: 30,
        level: 2,
        as_of: '2026-02-21',
        due_date: '2026-01-31',
        currency: 'EUR',
        due_amount: '0',
        days_overdue: 0,
        fee: '0',
        interest: '0',
        total: '0',
        text: 'held by the test',
      });
      const racing = Promise.all([run5('2026-02-21'), run5('2026-02-21')]);
      await testing.waitUntil(async () => {
        const { rows } = await svc.db.raw<{ rows: Array<{ waiting: number }> }>(
          `select count(*)::int as waiting from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock' and query ilike 'insert into%dunning_letters%'`,
        );
        return rows[0]!.waiting >= 2;
      });
      await holder.rollback();
      const letters = (await racing).flatMap((r) => body(r).letters as Array<Record<string, any>>);
      expect(letters.map((l) => [l.invoice_id, l.level, l.fee])).toEqual([[reminded, 2, 5]]);
      const made = await feeInvoices();
      expect(made).toHaveLength(1);
      feeInvoice = made[0].id as number;
      expect(letters[0]!.fee_invoice_id).toBe(feeInvoice);

      const [fee] = body(await call5('invoicing.invoice.balances', { id: feeInvoice, include_items: true })).invoices;
      // Issued and unpaid, due on the letter's date (so overdue by today's clock).
      expect(fee).toMatchObject({ invoicetype: 'invoiceout', invoicestatus: 'overdue', invoicetotal: 5, due_amount: 5 });
      expect(made[0]).toMatchObject({ invoicestatus: 'open', partner_id: 30, currency: 'EUR' });
      expect(await svc.db('invoices').where({ id: feeInvoice }).first(svc.db.raw('invoicedue::text as due'))).toEqual({
        due: '2026-02-21',
      });
      expect(fee.line_items.map((l: Record<string, unknown>) => [l.product_name, l.total, l.tax_category])).toEqual([
        ['Reminder fee: ' + String(letters[0]!.invoicenumber) + ', level 2', 5, 'E'],
      ]);
      // Posted: receivable debited, the fee account credited, on the letter's date.
      const { rows: journal } = await svc.db.raw<{ rows: Array<Record<string, string>> }>(
        `select e.journaldate::text as day, l.account, l.debit::numeric(18,2)::text as debit, l.credit::numeric(18,2)::text as credit
           from journal_entries e join journal_lines l on l.entry_id = e.id where e.org_id = ? and e.invoice_id = ? order by l.id`,
        [org, feeInvoice],
      );
      expect(journal).toEqual([
        { day: '2026-02-21', account: '1200 Accounts Receivable', debit: '5.00', credit: '0.00' },
        { day: '2026-02-21', account: '4750 Reminder Fees', debit: '0.00', credit: '5.00' },
      ]);
    });

    it('a repeated run makes no second fee invoice', async () => {
      expect(body(await run5('2026-02-21')).letters).toEqual([]);
      expect(await feeInvoices()).toHaveLength(1);
    });

    it('the letter shows its fee invoice in the list, the get and the event', async () => {
      const [letter] = body(await call5('invoicing.dunning.list', { action: 'list', invoice_id: reminded, level: 2 })).letters;
      expect(letter.fee_invoice_id).toBe(feeInvoice);
      expect(body(await call5('invoicing.dunning.get', { action: 'get', id: letter.id })).letter.fee_invoice_id).toBe(feeInvoice);
      await testing.waitUntil(() => events.some((e) => e.data.id === letter.id));
      expect(events.filter((e) => e.data.id === letter.id).map((e) => e.data.fee_invoice_id)).toEqual([feeInvoice]);
    });

    it('the fee reaches the aged receivables, the statement and the VAT report', async () => {
      const aged = await report({ report: 'aged_receivables', as_of: '2026-02-21' });
      const row = aged.partners.find((p: { partner: number }) => p.partner === 30);
      expect(row.total).toBe(1005);
      expect(row.documents.map((d: { invoice_id: number; open_amount: number }) => [d.invoice_id, d.open_amount])).toEqual(
        expect.arrayContaining([
          [reminded, 1000],
          [feeInvoice, 5],
        ]),
      );
      const statement = await report({ report: 'statement', partner: 30, date_from: '2026-01-01', date_to: '2026-02-28' });
      expect(statement.lines.map((l: { kind: string; invoice_id: number; debit: number }) => [l.kind, l.invoice_id, l.debit])).toEqual([
        ['invoice', reminded, 1000],
        ['invoice', feeInvoice, 5],
      ]);
      expect(statement.closing_balance).toBe(1005);
      const vat = await report({ report: 'vat', date_from: '2026-02-01', date_to: '2026-02-28' });
      expect(vat.rows).toEqual([{ direction: 'sales', tax_category: 'E', tax_rate: 0, base: 5, tax: 0 }]);
    });

    it('the fee invoice as UBL and CII passes the EN 16931 rules beside the seller’s VAT id', async () => {
      for (const format of ['ubl', 'cii'] as const) {
        const file = body(await call5('invoicing.invoice.render', { id: feeInvoice, format }));
        const xml = Buffer.from(file.content_base64 as string, 'base64').toString('utf8');
        expect(xml).toContain('IE6388047V');
        expect([format, await einvoiceFailures(format, xml)]).toEqual([format, '']);
        if (format === 'ubl') {
          // Why not O ("not subject to VAT"): the same document in O beside the seller's VAT id fails BR-O-02.
          const asO = xml.replace(/<cbc:ID>E<\/cbc:ID>/g, '<cbc:ID>O</cbc:ID>').replace(/<cbc:Percent>0(\.0+)?<\/cbc:Percent>/g, '');
          expect(await einvoiceFailures('ubl', asO)).toContain('BR-O-02');
        }
      }
    }, 120_000);

    it('the fee invoice gets no letters of its own; level 3 posts its fee once more', async () => {
      const third = body(await run5('2026-03-21'));
      expect(third.letters.map((l: { invoice_id: number; level: number; fee: number }) => [l.invoice_id, l.level, l.fee])).toEqual([
        [reminded, 3, 10],
      ]);
      expect(third.skipped).toEqual([]);
      const made = await feeInvoices();
      expect(made.map((i: { invoicetotal: string }) => Number(i.invoicetotal))).toEqual([5, 10]);
      expect(third.letters[0].fee_invoice_id).toBe(made[1].id);
    });
  });

  describe('the fee account, a fee in another currency, and the lock date (organization 6, books in EUR)', () => {
    const org = 6;
    const call6 = (operation: string, payload: Record<string, unknown>) => svc.call(operation, { userid: '5', ...payload }, org);
    const levels6 = (payload: Record<string, unknown>) => call6('invoicing.dunning.levels', { action: 'levels', ...payload });
    const run6 = (as_of: string) => call6('invoicing.dunning.run', { action: 'run', as_of });
    const feeInvoices = () => svc.db('invoices').where({ org_id: org, sourcetype: 'dunning_letter' }).orderBy('id');
    const journalOf = async (invoiceId: number) =>
      (
        await svc.db.raw<{ rows: Array<Record<string, string>> }>(
          `select e.journaldate::text as day, l.account, l.debit::numeric(18,2)::text as debit, l.credit::numeric(18,2)::text as credit
             from journal_entries e join journal_lines l on l.entry_id = e.id where e.org_id = ? and e.invoice_id = ? order by l.id`,
          [org, invoiceId],
        )
      ).rows;
    let reminded: number; // 1,000.00 USD at 0.9 EUR per USD, due 2026-01-31

    beforeAll(async () => {
      await setAccountingCurrency(svc, org, 'EUR');
      const inv = body(
        await call6('invoicing.invoice.create', {
          invoicetype: 'invoiceout',
          partner: 40,
          currency: 'USD',
          exchange_rate: '0.9',
          invoicedatetime: '2026-01-01T09:00:00',
          invoicedue: '2026-01-31',
          line_items: [line(1000)],
        }),
      ).invoice;
      body(await call6('invoicing.invoice.validate', { validate_invoice: true, id: inv.id }));
      reminded = inv.id as number;
    });

    it('refuses a blank fee_account or one the journal keeps for itself, naming the field and changing nothing', async () => {
      await refusedUnchanged(() => levels6({ levels: LEVELS, post_fees: true, fee_account: '   ' }), 'fee_account');
      await refusedUnchanged(() => levels6({ levels: LEVELS, post_fees: true, fee_account: '1200 Accounts Receivable' }), 'fee_account');
      await refusedUnchanged(() => levels6({ fee_account: 'Bank' }), 'fee_account');
    });

    it('answers 4750 Reminder Fees until set; a set keeps it unless it names another', async () => {
      expect(body(await levels6({})).fee_account).toBe('4750 Reminder Fees');
      const set = body(await levels6({ levels: LEVELS, post_fees: true, fee_account: ' 8400 Late Payment Fees ' }));
      expect(set).toMatchObject({ post_fees: true, fee_account: '8400 Late Payment Fees' });
      expect(body(await levels6({ points: '9' })).fee_account).toBe('8400 Late Payment Fees');
    });

    it('posts a USD fee to the chosen account at the reminded invoice’s rate: 5.00 USD × 0.9 = 4.50 EUR', async () => {
      expect(body(await run6('2026-02-07')).letters.map((l: { level: number }) => l.level)).toEqual([1]);
      const second = body(await run6('2026-02-21'));
      expect(
        second.letters.map((l: { invoice_id: number; level: number; fee: number; currency: string }) => [
          l.invoice_id,
          l.level,
          l.fee,
          l.currency,
        ]),
      ).toEqual([[reminded, 2, 5, 'USD']]);
      const [fee] = await feeInvoices();
      expect(fee).toMatchObject({
        id: second.letters[0].fee_invoice_id,
        currency: 'USD',
        invoicestatus: 'open',
        chartofaccounts: '8400 Late Payment Fees',
      });
      expect(Number(fee.invoicetotal)).toBe(5);
      expect(Number(fee.exchange_rate)).toBe(0.9);
      expect(await journalOf(fee.id)).toEqual([
        { day: '2026-02-21', account: '1200 Accounts Receivable', debit: '4.50', credit: '0.00' },
        { day: '2026-02-21', account: '8400 Late Payment Fees', debit: '0.00', credit: '4.50' },
      ]);
    });

    it('refuses a run whose fee would post on or before the lock date, naming as_of and storing nothing; after it, the fee posts', async () => {
      const configured = await svc.call('invoicing.books.configure', { lock_date: '2026-03-31' }, org);
      expect(configured.ok).toBe(true);
      await refusedUnchanged(() => run6('2026-03-07'), 'as_of');
      const refused = (await run6('2026-03-31')) as { ok: boolean; status: number; message?: string };
      expect(refused).toMatchObject({ ok: false, status: 400 });
      expect(refused.message).toMatch(
        /the books are locked up to 2026-03-31: the fee invoice of INV-\d+, level 3 dated 2026-03-31 cannot be posted/,
      );
      // A dry run posts nothing, so the lock date does not stand in its way.
      expect(body(await call6('invoicing.dunning.run', { action: 'run', as_of: '2026-03-07', dry_run: true })).letters).toHaveLength(1);
      const third = body(await run6('2026-04-01'));
      expect(third.letters.map((l: { level: number; fee: number }) => [l.level, l.fee])).toEqual([[3, 10]]);
      const made = await feeInvoices();
      expect(made).toHaveLength(2);
      expect(await journalOf(made[1].id)).toEqual([
        { day: '2026-04-01', account: '1200 Accounts Receivable', debit: '9.00', credit: '0.00' },
        { day: '2026-04-01', account: '8400 Late Payment Fees', debit: '0.00', credit: '9.00' },
      ]);
    });
  });

  describe('disputed invoices and one letter (organization 4)', () => {
    const org = 4;
    const call4 = (operation: string, payload: Record<string, unknown>) => svc.call(operation, { userid: '5', ...payload }, org);
    let contested: number; // 800.00 due 2026-01-31
    let bill: number; // a vendor bill: no reminders

    beforeAll(async () => {
      state.profiles.set(org, {
        ...testing.profileRecord(org),
        legal_name: 'Reminding Ltd',
        address_line1: '1 Quay Street',
        city: 'Dublin',
        country: 'IE',
        iban: 'IE29AIBK93115212345678',
      });
      body(await call4('invoicing.dunning.levels', { action: 'levels', levels: LEVELS, reference_rate: '4.5' }));
      const create = async (invoicetype: string, price: number) => {
        const inv = body(
          await call4('invoicing.invoice.create', {
            invoicetype,
            partner: 20,
            invoicedatetime: '2026-01-01T09:00:00',
            invoicedue: '2026-01-31',
            line_items: [line(price)],
          }),
        ).invoice;
        body(await call4('invoicing.invoice.validate', { validate_invoice: true, id: inv.id }));
        return inv.id as number;
      };
      contested = await create('invoiceout', 800);
      bill = await create('invoicein', 50);
    });

    it('refuses to mark an unknown invoice or a vendor bill, changing nothing', async () => {
      const unknown = (await call4('invoicing.dunning.dispute', { action: 'dispute', invoice_id: 999_999, disputed: true })) as {
        ok: boolean;
        code?: string;
      };
      expect(unknown).toMatchObject({ ok: false, code: 'not_found' });
      await refusedUnchanged(
        () => call4('invoicing.dunning.dispute', { action: 'dispute', invoice_id: bill, disputed: true }),
        'invoice_id',
      );
    });

    it('skips a disputed invoice as disputed, keeps the first time it was marked, and sends its letter once cleared', async () => {
      const marked = body(
        await call4('invoicing.dunning.dispute', { action: 'dispute', invoice_id: contested, disputed: true, reason: 'Goods damaged' }),
      );
      expect(marked).toMatchObject({ invoice_id: contested, disputed: true, reason: 'Goods damaged' });
      expect(marked.disputed_at).toEqual(expect.any(String));
      // Marked again without a reason: the first time and reason stay.
      const again = body(await call4('invoicing.dunning.dispute', { action: 'dispute', invoice_id: contested, disputed: true }));
      expect(again).toMatchObject({ disputed: true, reason: 'Goods damaged', disputed_at: marked.disputed_at });

      const skipped = body(await call4('invoicing.dunning.run', { action: 'run', as_of: '2026-02-07' }));
      expect(skipped.letters).toEqual([]);
      expect(skipped.skipped).toEqual([{ invoice_id: contested, reason: 'disputed' }]);

      const cleared = body(await call4('invoicing.dunning.dispute', { action: 'dispute', invoice_id: contested, disputed: false }));
      expect(cleared).toMatchObject({ disputed: false, reason: null, disputed_at: null });
      const sent = body(await call4('invoicing.dunning.run', { action: 'run', as_of: '2026-02-07' }));
      expect(brief(sent.letters)).toEqual([{ invoice_id: contested, level: 1, days_overdue: 7, interest: 0, fee: 0, total: 800 }]);
    });

    it('answers one letter as its record, as a PDF the customer can read, and another organization’s letter as not found', async () => {
      const second = body(await call4('invoicing.dunning.run', { action: 'run', as_of: '2026-02-21' })).letters[0];
      const got = body(await call4('invoicing.dunning.get', { action: 'get', id: second.id }));
      expect(got.letter).toEqual(second);
      const listed = body(await call4('invoicing.dunning.list', { action: 'list', invoice_id: contested })).letters;
      expect(listed[0]).toEqual(got.letter);

      const file = body(await call4('invoicing.dunning.get', { action: 'get', id: second.id, format: 'pdf' }));
      expect(file).toMatchObject({ id: second.id, format: 'pdf', content_type: 'application/pdf' });
      expect(file.filename).toMatch(/^reminder-.+-level-2\.pdf$/);
      const text = pdfText(Buffer.from(file.content_base64, 'base64'));
      // 800.00 × 12.5 % × 21 / 365 = 5.7534… → 5.75; fee 5.00; total 810.75.
      for (const expected of [
        'Reminding Ltd',
        'Contesting SARL',
        '69001 Lyon',
        'Second payment reminder',
        second.invoicenumber,
        'Second reminder',
        '€5.75',
        '€5.00',
        '€810.75',
        'IBAN IE29AIBK93115212345678',
      ])
        expect([expected, text.includes(expected)]).toEqual([expected, true]);

      const elsewhere = (await call('invoicing.dunning.get', { action: 'get', id: second.id })) as { ok: boolean; code?: string };
      expect(elsewhere).toMatchObject({ ok: false, code: 'not_found' });
    });
  });
});
