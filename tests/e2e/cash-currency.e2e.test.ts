import fc from 'fast-check';
import { invoicingSuite, ok } from '../support/invoicing';
import { eventually, type ApiResponse } from '../support/system';

const RECEIVABLE = '1200 Accounts Receivable';
const GAINS = '7700 Exchange Gains';
const LOSSES = '6700 Exchange Losses';

/**
 * Payments in another currency than the books' (docs/invoicing.md "Payments in another currency"),
 * through the gateway, with EUR books and USD documents: a payment worth more or less than the
 * invoice it settles posts the realized exchange gain or loss, so the receivable in EUR clears
 * exactly; refusals change nothing; and, over random rates and amounts, full settlement leaves each
 * partner's receivable at exactly 0 with every entry balanced.
 */
describe('payments in another currency, end to end', () => {
  const suite = invoicingSuite('Export consulting');
  const { post, payments } = suite;

  beforeAll(async () => {
    await ok(post('/organization/setprofile', { default_currency: 'EUR' }));
    await suite.settingsReach((row) => expect(row?.default_currency).toBe('EUR'));
  });
  async function customer(name: string, currency = 'USD', partner_type = 'customer'): Promise<number> {
    const id = (await ok(post('/crm/editpatner', { action: 'create', partnername: name, partner_type, currency }))).body.partner.id;
    // Invoicing takes the partner's currency from its directory, fed by the partner's event.
    await eventually(async () => expect(await suite.invoicingDb('partner_directory').where({ id }).first()).toBeDefined());
    return id;
  }
  async function issued(partner: number, price: number | string, rate: string, type = 'invoiceout'): Promise<number> {
    const inv = (
      await ok(
        post('/invoicing/invoice/new', {
          invoicetype: type,
          partner,
          currency: 'USD',
          exchange_rate: rate,
          invoicedatetime: '2026-05-04T10:00:00',
          line_items: [{ product_id: suite.product, quantity: 1, price, tax_rate: 0, tax_included: false }],
        }),
      )
    ).body.invoice;
    await ok(post('/invoicing/invoice/new', { validate_invoice: true, id: inv.id }));
    return inv.id;
  }
  /** An entry's lines as [account, debit, credit]. */
  async function linesOf(entryId: number): Promise<string[][]> {
    const lines = await suite.invoicingDb('journal_lines').where({ entry_id: entryId }).orderBy('id');
    return lines.map((l) => [l.account, Number(l.debit).toFixed(2), Number(l.credit).toFixed(2)]);
  }
  /** The partner's receivable in EUR: the receivable lines of every entry of its documents and payments. */
  async function receivableOf(partner: number): Promise<string> {
    const { rows } = await suite.invoicingDb.raw(
      `select coalesce(sum(l.debit - l.credit), 0)::text as receivable from journal_lines l join journal_entries e on e.id = l.entry_id
        where l.account = ? and (e.invoice_id in (select id from invoices where partner_id = ?)
                                 or e.payment_id in (select id from payments where partner_id = ?))`,
      [RECEIVABLE, partner, partner],
    );
    return Number(rows[0].receivable).toFixed(2);
  }
  async function unbalancedEntries(): Promise<unknown[]> {
    const { rows } = await suite.invoicingDb.raw(
      'select e.id from journal_entries e join journal_lines l on l.entry_id = e.id group by e.id having sum(l.debit) <> sum(l.credit)',
    );
    return rows;
  }
  async function refusedUnchanged(send: () => Promise<ApiResponse>, field: string) {
    await suite.unchangedBy(send, (r) => {
      expect([r.statusCode, r.body.code]).toEqual([400, 'validation_failed']);
      expect(r.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    });
  }

  it('posts a realized gain when the payment is worth more than the invoice booked, and a loss when less', async () => {
    const acme = await customer('Acme USA');
    // 100.00 USD at 0.90: the receivable is 90.00 EUR.
    const gainInvoice = await issued(acme, 100, '0.9');
    const gain = (
      await ok(
        payments({
          action: 'create',
          partner: acme,
          amount: 100,
          currency: 'USD',
          direction: 'in',
          payment_date: '2026-05-20',
          exchange_rate: '0.95',
          allocations: [{ invoice_id: gainInvoice, amount: 100 }],
        }),
      )
    ).body.payment;
    expect(gain).toMatchObject({ exchange_rate: 0.95, accounting_amount: 95, unallocated: 0 });
    expect(await linesOf(gain.journal_entry_id)).toEqual([
      ['Bank', '95.00', '0.00'],
      [RECEIVABLE, '0.00', '90.00'],
      [GAINS, '0.00', '5.00'],
    ]);
    // register_payment at 0.85: 85.00 EUR in for 90.00 EUR of receivable.
    const lossInvoice = await issued(acme, 100, '0.9');
    const loss = (
      await ok(
        post('/invoicing/invoice/new', {
          register_payment: true,
          id: lossInvoice,
          amount: 100,
          payment_date: '2026-05-21',
          exchange_rate: 0.85,
        }),
      )
    ).body.payment;
    expect(await linesOf(loss.journal_entry_id)).toEqual([
      ['Bank', '85.00', '0.00'],
      [RECEIVABLE, '0.00', '90.00'],
      [LOSSES, '5.00', '0.00'],
    ]);
    expect(await receivableOf(acme)).toBe('0.00');
  });

  it('clears an invoice at what its validation booked when the payment waited for that validation to commit', async () => {
    const initech = await customer('Initech USA');
    // A draft of 100.00 USD at 0.90, held locked here so its validation and then the payment queue behind.
    const draft = (
      await ok(
        post('/invoicing/invoice/new', {
          invoicetype: 'invoiceout',
          partner: initech,
          currency: 'USD',
          exchange_rate: '0.9',
          invoicedatetime: '2026-05-04T10:00:00',
          line_items: [{ product_id: suite.product, quantity: 1, price: 100, tax_rate: 0, tax_included: false }],
        }),
      )
    ).body.invoice.id;
    const waiting = async () => {
      const { rows } = await suite.invoicingDb.raw(
        `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
      );
      return rows[0].n as number;
    };
    const hold = await suite.invoicingDb.transaction();
    let validated!: Promise<ApiResponse>;
    let paid!: Promise<ApiResponse>;
    try {
      await hold.raw('select id from invoices where id = ? for update', [draft]);
      validated = post('/invoicing/invoice/new', { validate_invoice: true, id: draft });
      await eventually(async () => expect(await waiting()).toBe(1));
      paid = post('/invoicing/invoice/new', {
        register_payment: true,
        id: draft,
        amount: 100,
        payment_date: '2026-05-21',
        exchange_rate: 0.85,
      });
      await eventually(async () => expect(await waiting()).toBe(2));
    } finally {
      await hold.rollback();
    }
    await ok(validated);
    const payment = (await ok(paid)).body.payment;
    // The receivable the validation booked (90.00 EUR) is cleared, not the 100.00 the draft was worth unconverted.
    expect(await linesOf(payment.journal_entry_id)).toEqual([
      ['Bank', '85.00', '0.00'],
      [RECEIVABLE, '0.00', '90.00'],
      [LOSSES, '5.00', '0.00'],
    ]);
    expect(await receivableOf(initech)).toBe('0.00');
  });

  it("takes the rate table's rate on the payment date, and clears credit allocated later at the invoice's rate", async () => {
    const globex = await customer('Globex USA');
    await ok(post('/invoicing/exchangerates', { action: 'set', currency: 'USD', date: '2026-06-01', rate: '0.8' }));
    const invoice = await issued(globex, '50.01', '0.9');
    // Unallocated first: 60.00 USD at 0.80 is 48.00 EUR of credit on the receivable.
    const payment = (
      await ok(payments({ action: 'create', partner: globex, amount: 60, currency: 'USD', direction: 'in', payment_date: '2026-06-03' }))
    ).body.payment;
    expect(payment).toMatchObject({ exchange_rate: 0.8, accounting_amount: 48 });
    const allocated = (
      await ok(
        payments({
          action: 'allocate',
          payment_id: payment.id,
          allocation_date: '2026-06-04',
          allocations: [{ invoice_id: invoice, amount: 50.01 }],
        }),
      )
    ).body.allocations[0];
    // 50.01 USD of credit is worth 40.01 EUR (50.01 x 48 / 60, rounded) and clears 45.01 EUR (50.01 x 0.9): a loss of 5.00.
    // The credit used and the invoice cleared are lines of their own, though both sit on the receivable.
    expect(await linesOf(allocated.journal_entry_id)).toEqual([
      [RECEIVABLE, '40.01', '0.00'],
      [RECEIVABLE, '0.00', '45.01'],
      [LOSSES, '5.00', '0.00'],
    ]);
    const refund = (await ok(payments({ action: 'refund', payment_id: payment.id, amount: 9.99, refund_date: '2026-06-05' }))).body.refund;
    // The rest of the credit (48.00 - 40.01 = 7.99 EUR) leaves the receivable exactly.
    expect(await linesOf(refund.journal_entry_id)).toEqual([
      [RECEIVABLE, '7.99', '0.00'],
      ['Bank', '0.00', '7.99'],
    ]);
    expect(await receivableOf(globex)).toBe('0.00');
    expect(await unbalancedEntries()).toEqual([]);
  });

  it('refuses a currency mismatch, a foreign payment with no rate, and a rate on a payment in the books’ currency, changing nothing', async () => {
    const initech = await customer('Initech USA');
    const invoice = await issued(initech, 20, '0.9');
    const pay = (body: Record<string, unknown>) => () =>
      payments({ action: 'create', partner: initech, amount: 20, currency: 'USD', direction: 'in', payment_date: '2026-05-10', ...body });
    await refusedUnchanged(pay({ currency: 'EUR', allocations: [{ invoice_id: invoice, amount: 20 }] }), 'currency');
    // No rate given, none in the table before June, and no document to take one from.
    await refusedUnchanged(pay({}), 'exchange_rate');
    await refusedUnchanged(pay({ currency: 'EUR', exchange_rate: 1.1 }), 'exchange_rate');
    // Settling the invoice alone, with no other rate, takes its own: no difference is realized.
    const settled = (await ok(pay({ allocations: [{ invoice_id: invoice, amount: 20 }] })())).body.payment;
    expect(settled).toMatchObject({ exchange_rate: 0.9, accounting_amount: 18 });
    expect(await linesOf(settled.journal_entry_id)).toEqual([
      ['Bank', '18.00', '0.00'],
      [RECEIVABLE, '0.00', '18.00'],
    ]);
  });

  it('clears a document its rate made worth nothing (a cent at 0.01): its entry has no trade line, so it is worth 0.00, not its total', async () => {
    const tiny = await customer('Tiny Cents Inc');
    const invoice = await issued(tiny, '0.01', '0.01');
    const body = {
      action: 'create',
      partner: tiny,
      currency: 'USD',
      direction: 'in',
      payment_date: '2026-07-01',
      exchange_rate: '0.509346',
    };
    const paid = (await ok(payments({ ...body, amount: '2.46' }))).body.payment;
    await ok(payments({ action: 'allocate', payment_id: paid.id, allocations: [{ invoice_id: invoice, amount: '0.01' }] }));
    await ok(payments({ action: 'refund', payment_id: paid.id, amount: '2.45' }));
    expect(await receivableOf(tiny)).toBe('0.00');
    expect(await unbalancedEntries()).toEqual([]);
  });

  it('ages a payment its rate made worth nothing (0.15 USD at 0.01) as 0.00 of credit, as its entry booked it', async () => {
    const crumbs = await customer('Crumbs Inc');
    const body = { action: 'create', partner: crumbs, currency: 'USD', direction: 'in', payment_date: '2026-07-02', exchange_rate: '0.01' };
    expect((await ok(payments({ ...body, amount: '0.15' }))).body.payment).toMatchObject({ accounting_amount: 0 });
    const aged = (await ok(post('/invoicing/reports', { report: 'aged_receivables', as_of: '2026-07-02' }))).body;
    const row = aged.partners.find((p: { partner: number }) => p.partner === crumbs);
    expect(row.credits.map((c: Record<string, unknown>) => [c.unallocated_currency, c.unallocated])).toEqual([[0.15, 0]]);
    expect([row.total, await receivableOf(crumbs)]).toEqual([0, '0.00']);
  });

  describe('a refund of credit at another rate than the credit was booked at', () => {
    const PAYABLE = '2000 Accounts Payable';
    const client = () => suite.sys.client;
    async function credit(partner: number, amount: number, rate: string, date: string, direction: 'in' | 'out' = 'in') {
      const body = { org_id: '1', userid: 'e2e', partner, amount, currency: 'USD', direction, payment_date: date, exchange_rate: rate };
      return (await client().invoicing.payment.create(body)).payment;
    }
    async function refund(
      source: { payment_id: number } | { credit_note_id: number },
      amount: number,
      date: string,
      rate?: string,
      idempotencyKey?: string,
    ) {
      const body = { org_id: '1', userid: 'e2e', ...source, amount, refund_date: date, ...(rate ? { exchange_rate: rate } : {}) };
      return client().invoicing.payment.refund(body, { idempotencyKey });
    }
    /** What a partner's account in the partners ledger (in the credit's currency, fed by events) says. */
    async function ledgerBalance(partner: number, expected: number) {
      await eventually(async () => {
        const { partner: view } = await client().partners.partner.balance({ org_id: '1', partner_id: partner });
        expect(view.balance).toBe(expected);
      });
    }

    it('realizes a loss when paid out at a higher rate and a gain at a lower one; the credit leaves the receivable at exactly 0', async () => {
      const loser = await customer('Refund Loss USA');
      // 100.00 USD at 0.90: 90.00 EUR of credit on the receivable.
      const paid = await credit(loser, 100, '0.9', '2026-05-11');
      const key = `refund-loss-${paid.id}`;
      const loss = await refund({ payment_id: paid.id }, 100, '2026-05-12', '0.95', key);
      // Sent again under its key, it is the same refund: nothing is posted twice.
      expect((await refund({ payment_id: paid.id }, 100, '2026-05-12', '0.95', key)).refund).toEqual(loss.refund);
      // 100.00 USD at 0.95 cost 95.00 EUR out of the bank for 90.00 EUR of credit: a loss of 5.00.
      expect(await linesOf(loss.refund.journal_entry_id)).toEqual([
        [RECEIVABLE, '90.00', '0.00'],
        ['Bank', '0.00', '95.00'],
        [LOSSES, '5.00', '0.00'],
      ]);
      expect(loss.payment).toMatchObject({ refunded: 100, unallocated: 0 });
      expect(loss.refund).toMatchObject({ amount: 100, currency: 'USD', exchange_rate: 0.95, accounting_amount: 95 });
      expect(await receivableOf(loser)).toBe('0.00');

      const winner = await customer('Refund Gain USA');
      const again = await credit(winner, 100, '0.9', '2026-05-11');
      const gain = await refund({ payment_id: again.id }, 100, '2026-05-12', '0.85');
      expect(await linesOf(gain.refund.journal_entry_id)).toEqual([
        [RECEIVABLE, '90.00', '0.00'],
        ['Bank', '0.00', '85.00'],
        [GAINS, '0.00', '5.00'],
      ]);
      expect(await receivableOf(winner)).toBe('0.00');
      expect(await unbalancedEntries()).toEqual([]);
      // The partner ledger counts the credit in its own currency: the refund event carries 100.00 USD as before.
      await ledgerBalance(loser, 0);
      await ledgerBalance(winner, 0);
    });

    it('values a partial refund as a share of the credit, the last piece taking exactly what is left', async () => {
      const partial = await customer('Refund Partial USA');
      // 100.00 USD at 0.901: 90.10 EUR.
      const paid = await credit(partial, 100, '0.901', '2026-05-13');
      // 33.33 USD of it is worth 33.33 x 90.10 / 100 = 30.03 EUR; paid out at 0.95: 31.66 EUR, a loss of 1.63.
      const first = await refund({ payment_id: paid.id }, 33.33, '2026-05-14', '0.95');
      expect(await linesOf(first.refund.journal_entry_id)).toEqual([
        [RECEIVABLE, '30.03', '0.00'],
        ['Bank', '0.00', '31.66'],
        [LOSSES, '1.63', '0.00'],
      ]);
      expect(await receivableOf(partial)).toBe('-60.07');
      // The rest, 66.67 USD, takes the 60.07 EUR left; paid out at 0.85: 56.67 EUR, a gain of 3.40.
      const rest = await refund({ payment_id: paid.id }, 66.67, '2026-05-15', '0.85');
      expect(await linesOf(rest.refund.journal_entry_id)).toEqual([
        [RECEIVABLE, '60.07', '0.00'],
        ['Bank', '0.00', '56.67'],
        [GAINS, '0.00', '3.40'],
      ]);
      expect(await receivableOf(partial)).toBe('0.00');
      expect(await unbalancedEntries()).toEqual([]);
    });

    it('values credit from payments at two rates each at its own payment’s, as allocation does', async () => {
      const two = await customer('Refund Two Rates USA');
      // 100.00 USD at 0.90 (90.00 EUR) and 100.00 USD at 0.80 (80.00 EUR): 170.00 EUR of credit.
      const dear = await credit(two, 100, '0.9', '2026-05-16');
      const cheap = await credit(two, 100, '0.8', '2026-05-17');
      expect(await receivableOf(two)).toBe('-170.00');
      // A refund names its source: 50.00 USD of the cheaper payment is worth 40.00 EUR, paid out at 0.95 (47.50).
      const fromCheap = await refund({ payment_id: cheap.id }, 50, '2026-05-18', '0.95');
      expect(await linesOf(fromCheap.refund.journal_entry_id)).toEqual([
        [RECEIVABLE, '40.00', '0.00'],
        ['Bank', '0.00', '47.50'],
        [LOSSES, '7.50', '0.00'],
      ]);
      // The same 50.00 USD of the dearer one is worth 45.00 EUR: a loss of 2.50 only.
      const fromDear = await refund({ payment_id: dear.id }, 50, '2026-05-18', '0.95');
      expect(await linesOf(fromDear.refund.journal_entry_id)).toEqual([
        [RECEIVABLE, '45.00', '0.00'],
        ['Bank', '0.00', '47.50'],
        [LOSSES, '2.50', '0.00'],
      ]);
      // Left: 50.00 USD at 0.90 and 50.00 USD at 0.80, 85.00 EUR.
      expect(await receivableOf(two)).toBe('-85.00');
      await refund({ payment_id: dear.id }, 50, '2026-05-19', '0.9');
      await refund({ payment_id: cheap.id }, 50, '2026-05-19', '0.9');
      expect(await receivableOf(two)).toBe('0.00');
      expect(await unbalancedEntries()).toEqual([]);
      await ledgerBalance(two, 0);
    });

    it("refunds a credit note's credit and a vendor's credit at another rate, realizing the difference the same way", async () => {
      const noted = await customer('Refund Credit Note USA');
      // A credit note of 100.00 USD at 0.90: 90.00 EUR of credit on the receivable.
      const note = await issued(noted, 100, '0.9', 'creditout');
      const paidOut = await refund({ credit_note_id: note }, 100, '2026-05-20', '0.95');
      expect(paidOut.credit_note).toMatchObject({ amount_paid: 100, due_amount: 0 });
      expect(await linesOf(paidOut.refund.journal_entry_id)).toEqual([
        [RECEIVABLE, '90.00', '0.00'],
        ['Bank', '0.00', '95.00'],
        [LOSSES, '5.00', '0.00'],
      ]);
      expect(await receivableOf(noted)).toBe('0.00');

      const vendor = await customer('Refund Vendor USA', 'USD', 'vendor');
      // 100.00 USD paid to the vendor at 0.90 (90.00 EUR on the payable); it pays them back at 0.95: 95.00 EUR in, a gain of 5.00.
      const advance = await credit(vendor, 100, '0.9', '2026-05-21', 'out');
      const back = await refund({ payment_id: advance.id }, 100, '2026-05-22', '0.95');
      expect(await linesOf(back.refund.journal_entry_id)).toEqual([
        ['Bank', '95.00', '0.00'],
        [PAYABLE, '0.00', '90.00'],
        [GAINS, '0.00', '5.00'],
      ]);
      expect(await unbalancedEntries()).toEqual([]);
    });

    it('refuses a rate other than 1 on a refund of credit in the books’ currency, changing nothing', async () => {
      const local = await customer('Refund Local EUR', 'EUR');
      const paid = (
        await ok(payments({ action: 'create', partner: local, amount: 50, currency: 'EUR', direction: 'in', payment_date: '2026-05-26' }))
      ).body.payment;
      await refusedUnchanged(
        () => payments({ action: 'refund', payment_id: paid.id, amount: 10, refund_date: '2026-05-27', exchange_rate: 1.1 }),
        'exchange_rate',
      );
      const refunded = (
        await ok(payments({ action: 'refund', payment_id: paid.id, amount: 10, refund_date: '2026-05-27', exchange_rate: 1 }))
      ).body.refund;
      expect(refunded).toMatchObject({ exchange_rate: null, accounting_amount: 10 });
      expect(await linesOf(refunded.journal_entry_id)).toEqual([
        [RECEIVABLE, '10.00', '0.00'],
        ['Bank', '0.00', '10.00'],
      ]);
    });

    it('takes the rate table’s rate on the refund date when none is given, else the credit’s own, realizing nothing', async () => {
      const plain = await customer('Refund Default Rate USA');
      // In May the table has no USD rate yet (the suite's first is of June 1): the credit's own 0.90 applies.
      const may = await credit(plain, 100, '0.9', '2026-05-24');
      const own = await refund({ payment_id: may.id }, 40, '2026-05-25');
      expect(own.refund).toMatchObject({ exchange_rate: 0.9, accounting_amount: 36 });
      expect(await linesOf(own.refund.journal_entry_id)).toEqual([
        [RECEIVABLE, '36.00', '0.00'],
        ['Bank', '0.00', '36.00'],
      ]);
      // On August 2 the table's rate of August 1, 0.92: 60.00 USD worth 54.00 EUR cost 55.20, a loss of 1.20.
      await ok(post('/invoicing/exchangerates', { action: 'set', currency: 'USD', date: '2026-08-01', rate: '0.92' }));
      const tabled = await refund({ payment_id: may.id }, 60, '2026-08-02');
      expect(await linesOf(tabled.refund.journal_entry_id)).toEqual([
        [RECEIVABLE, '54.00', '0.00'],
        ['Bank', '0.00', '55.20'],
        [LOSSES, '1.20', '0.00'],
      ]);
      expect(await receivableOf(plain)).toBe('0.00');
      expect(await unbalancedEntries()).toEqual([]);
    });
  });

  it('clears every receivable exactly after full settlement at random rates and amounts (fast-check, seed printed)', async () => {
    const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
    console.log(`cash currency property seed: ${seed} (replay with FC_SEED=${seed})`);
    // Rates from 0.01 to 10 with up to 6 decimals, as exact text.
    const rate = fc
      .integer({ min: 10_000, max: 10_000_000 })
      .map((micro) => `${Math.floor(micro / 1e6)}.${String(micro % 1e6).padStart(6, '0')}`);
    const cents = fc.integer({ min: 1, max: 500_000 });
    // An invoice settled in 1 to 4 pieces, each paid at its own rate, allocated at creation or later.
    const invoiceSpec = fc.record({
      total: cents,
      rate,
      pieces: fc.array(
        fc.record({ weight: fc.integer({ min: 1, max: 10 }), rate, later: fc.boolean(), extra: fc.integer({ min: 0, max: 500 }) }),
        {
          minLength: 1,
          maxLength: 4,
        },
      ),
    });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(invoiceSpec, { minLength: 1, maxLength: 3 }), async (specs) => {
        const partner = await customer(`FX ${seed}-${run++}`);
        for (const spec of specs) {
          const invoice = await issued(partner, (spec.total / 100).toFixed(2), spec.rate);
          const weights = spec.pieces.reduce((s, p) => s + p.weight, 0);
          let left = spec.total;
          for (const [i, piece] of spec.pieces.entries()) {
            const share = i === spec.pieces.length - 1 ? left : Math.min(left, Math.floor((spec.total * piece.weight) / weights));
            left -= share;
            if (share === 0) continue;
            const amount = (share / 100).toFixed(2);
            const body = {
              action: 'create',
              partner,
              currency: 'USD',
              direction: 'in',
              payment_date: '2026-07-01',
              exchange_rate: piece.rate,
            };
            if (!piece.later) {
              await ok(payments({ ...body, amount, allocations: [{ invoice_id: invoice, amount }] }));
              continue;
            }
            // Paid unallocated with something extra, allocated later, the extra refunded.
            const paid = (await ok(payments({ ...body, amount: ((share + piece.extra) / 100).toFixed(2) }))).body.payment;
            await ok(payments({ action: 'allocate', payment_id: paid.id, allocations: [{ invoice_id: invoice, amount }] }));
            if (piece.extra) await ok(payments({ action: 'refund', payment_id: paid.id, amount: (piece.extra / 100).toFixed(2) }));
          }
          const settled = await suite.invoicingDb('invoices').where({ id: invoice }).first();
          expect(settled.invoicestatus).toBe('paid');
        }
        expect(await receivableOf(partner)).toBe('0.00');
        expect(await unbalancedEntries()).toEqual([]);
      }),
      { seed, numRuns: Number(process.env.FC_RUNS ?? 8) },
    );
  }, 600_000);
});
