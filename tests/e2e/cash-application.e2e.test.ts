import { createDb, type Knex } from '@bo/runtime';
import fc from 'fast-check';
import { newProducts } from '../support/catalog';
import { eventually, startTestSystem, type ApiResponse, type TestSystem } from '../support/system';

/**
 * Cash application through the gateway (docs/invoicing.md, "Cash application"): each operation and
 * each refusal, then random sequences of invoices, credit notes, payments, allocations, refunds, voids
 * and write-offs, after which the books must agree: no document paid beyond its total, no payment
 * allocated beyond its amount, every journal entry balanced, and the partners' balances (fed by
 * events, exactly once) equal to the receivable account of the journal.
 */
describe('cash application, end to end', () => {
  let sys: TestSystem;
  let invoicingDb: Knex;
  let partnersDb: Knex;
  let product: number;
  const customers: number[] = [];

  beforeAll(async () => {
    sys = await startTestSystem();
    invoicingDb = createDb(sys.databaseUrl, 'invoicing', 2);
    partnersDb = createDb(sys.databaseUrl, 'partners', 2);
    [product] = (await newProducts(sys, ['Consulting'])) as [number];
    for (const name of ['Ada', 'Brook', 'Cato']) {
      const r = await ok(
        sys.post('/crm/editpatner', {
          org_id: 1,
          userid: 'e2e',
          action: 'create',
          partnername: name,
          partner_type: 'customer',
          currency: 'EUR',
        }),
      );
      customers.push(r.body.partner.id);
    }
  });
  afterAll(async () => {
    await invoicingDb?.destroy();
    await partnersDb?.destroy();
    await sys?.stop();
  });

  async function ok(reply: Promise<ApiResponse>): Promise<ApiResponse> {
    const r = await reply;
    if (r.statusCode !== 200) throw new Error(`expected 200, got ${r.statusCode}: ${JSON.stringify(r.body)}`);
    return r;
  }
  const post = (path: string, body: Record<string, unknown>, org: 1 | 2 = 1) =>
    sys.post(path, { org_id: org, userid: 'e2e', ...body }, { org });
  const line = (price: number) => ({ product_id: product, quantity: 1, price, tax_rate: 0, tax_included: false });
  async function issued(partner: number, price: number, over: Record<string, unknown> = {}): Promise<number> {
    const inv = (await ok(post('/invoicing/invoice/new', { invoicetype: 'invoiceout', partner, line_items: [line(price)], ...over }))).body
      .invoice;
    await ok(post('/invoicing/invoice/new', { validate_invoice: true, id: inv.id }));
    return inv.id;
  }
  const payments = (body: Record<string, unknown>, org: 1 | 2 = 1) => post('/invoicing/payments', body, org);

  /** Every table of invoicing, to prove a refusal changed nothing. */
  async function books(): Promise<string> {
    const tables = ['payments', 'payment_allocations', 'payment_refunds', 'journal_entries', 'journal_lines', 'invoices', 'outbox'];
    const counts = [];
    for (const t of tables) counts.push(`${t}:${JSON.stringify(await invoicingDb(t).count('* as n').first())}`);
    const paid = await invoicingDb('invoices').select('id', 'amount_paid', 'invoicestatus').orderBy('id');
    return counts.join(',') + JSON.stringify(paid);
  }
  async function refusedUnchanged(send: () => Promise<ApiResponse>, code: string, field?: string) {
    const before = await books();
    const r = await send();
    expect(r.statusCode).toBe(400);
    expect(r.body.code).toBe(code);
    if (field) expect(r.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    expect(await books()).toBe(before);
  }

  it('creates, allocates, refunds, voids, lists and gets payments, and writes off an invoice', async () => {
    const [ada] = customers as [number];
    const a = await issued(ada, 100);
    const b = await issued(ada, 80);
    const created = (
      await ok(
        payments({
          action: 'create',
          partner: ada,
          amount: 150,
          currency: 'EUR',
          direction: 'in',
          method: 'bank_transfer',
          reference: 'TRF-77',
          allocations: [{ invoice_id: a, amount: 100 }],
        }),
      )
    ).body.payment;
    expect(created).toMatchObject({ allocated: 100, unallocated: 50 });
    await ok(payments({ action: 'allocate', payment_id: created.id, allocations: [{ invoice_id: b, amount: 30 }] }));
    const refunded = (await ok(payments({ action: 'refund', payment_id: created.id, amount: 20 }))).body;
    expect(refunded.payment).toMatchObject({ allocated: 130, refunded: 20, unallocated: 0 });
    const other = (
      await ok(
        payments({
          action: 'create',
          partner: ada,
          amount: 50,
          currency: 'EUR',
          direction: 'in',
          allocations: [{ invoice_id: b, amount: 50 }],
        }),
      )
    ).body.payment;
    const voided = (await ok(payments({ action: 'void', payment_id: other.id, reason: 'bounced' }))).body;
    expect(voided.invoices[0]).toMatchObject({ id: b, amount_paid: 30, due_amount: 50, invoicestatus: 'open' });
    const written = (await ok(post('/invoicing/invoice/new', { write_off: true, id: b, reason: 'insolvent' }))).body.invoice;
    expect(written).toMatchObject({ invoicestatus: 'written_off', written_off_amount: 50, due_amount: 0 });
    const got = (await ok(payments({ action: 'get', payment_id: created.id }))).body.payment;
    expect(got.refunds).toHaveLength(1);
    const listed = (await ok(payments({ action: 'list', partner: ada }))).body;
    expect(listed.payments.map((p: { id: number }) => p.id)).toEqual([other.id, created.id]);
    // Ada owed 180; paid 150, 20 back, 50 voided, 50 written off: 180 - 150 + 20 - 50 + 50 - 50 = 0.
    await eventually(async () => {
      const { partner } = (await ok(sys.post('/crm/partners', { org_id: 1, partner_id: ada }))).body;
      expect(partner.balance).toBe(0);
    });
  });

  it('refuses over-allocation, cross-partner, cross-organization, currency mismatch and a second void, changing nothing', async () => {
    const [ada, brook] = customers as [number, number];
    const a = await issued(ada, 40);
    const theirs = await issued(brook, 40);
    const pay = (body: Record<string, unknown>) => () =>
      payments({ action: 'create', partner: ada, amount: 40, currency: 'EUR', direction: 'in', ...body });
    await refusedUnchanged(pay({ allocations: [{ invoice_id: a, amount: 40.01 }] }), 'validation_failed', 'allocations.0.amount');
    await refusedUnchanged(pay({ amount: 10, allocations: [{ invoice_id: a, amount: 20 }] }), 'validation_failed', 'amount');
    await refusedUnchanged(pay({ allocations: [{ invoice_id: theirs, amount: 1 }] }), 'validation_failed', 'allocations.0.invoice_id');
    await refusedUnchanged(pay({ currency: 'USD', allocations: [{ invoice_id: a, amount: 1 }] }), 'validation_failed', 'currency');
    // Organization 2 sees neither the invoice nor the payment of organization 1.
    const { partner: initech } = (
      await ok(post('/crm/editpatner', { action: 'create', partnername: 'Initech', partner_type: 'customer', currency: 'EUR' }, 2))
    ).body;
    await refusedUnchanged(
      () =>
        payments(
          {
            action: 'create',
            partner: initech.id,
            amount: 5,
            currency: 'EUR',
            direction: 'in',
            allocations: [{ invoice_id: a, amount: 5 }],
          },
          2,
        ),
      'not_found',
      'allocations.0.invoice_id',
    );
    const p = (await ok(pay({ amount: 10 })())).body.payment;
    await refusedUnchanged(
      () => payments({ action: 'allocate', payment_id: p.id, allocations: [{ invoice_id: a, amount: 1 }] }, 2),
      'not_found',
    );
    await ok(payments({ action: 'void', payment_id: p.id }));
    await refusedUnchanged(() => payments({ action: 'void', payment_id: p.id }), 'invalid_state');
  });

  it('keeps the books whole under random sequences of cash operations (fast-check, seed printed)', async () => {
    const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
    console.log(`cash application property seed: ${seed} (replay with FC_SEED=${seed})`);
    const cents = fc.integer({ min: 1, max: 20_000 }).map((c) => c / 100);
    const pick = fc.nat({ max: 1000 });
    const op = fc.oneof(
      fc.record({ kind: fc.constant('invoice' as const), who: pick, amount: cents }),
      fc.record({ kind: fc.constant('credit_note' as const), which: pick, amount: cents }),
      fc.record({
        kind: fc.constant('payment' as const),
        who: pick,
        amount: cents,
        allocations: fc.array(fc.tuple(pick, cents), { maxLength: 3 }),
      }),
      fc.record({ kind: fc.constant('allocate' as const), from: pick, note: fc.boolean(), which: pick, amount: cents }),
      fc.record({ kind: fc.constant('refund' as const), from: pick, note: fc.boolean(), amount: cents }),
      fc.record({ kind: fc.constant('void' as const), which: pick }),
      fc.record({ kind: fc.constant('write_off' as const), which: pick }),
    );
    const invoices: number[] = [];
    const notes: number[] = [];
    const paid: number[] = [];
    const nth = <T>(xs: T[], i: number): T | undefined => (xs.length ? xs[i % xs.length] : undefined);
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 4, maxLength: 14 }), async (ops) => {
        for (const o of ops) {
          let r: ApiResponse | undefined;
          if (o.kind === 'invoice') invoices.push(await issued(customers[o.who % customers.length] as number, o.amount));
          else if (o.kind === 'credit_note') {
            const credited = nth(invoices, o.which);
            if (credited === undefined) continue;
            const inv = await invoicingDb('invoices').where({ id: credited }).first();
            // A credit note names its invoice; one written off is refused (400), like any refusal here.
            const created = await post('/invoicing/invoice/new', {
              invoicetype: 'creditout',
              partner: inv.partner_id,
              sourcetype: 'invoice',
              sourceid: String(credited),
              line_items: [line(o.amount)],
            });
            expect([200, 400]).toContain(created.statusCode);
            if (created.statusCode !== 200) continue;
            const note = created.body.invoice;
            r = await post('/invoicing/invoice/new', { validate_invoice: true, id: note.id });
            if (r.statusCode === 200) notes.push(note.id);
          } else if (o.kind === 'payment') {
            const who = customers[o.who % customers.length] as number;
            const allocations = o.allocations.flatMap(([i, amount]) => {
              const id = nth(invoices, i);
              return id === undefined ? [] : [{ invoice_id: id, amount }];
            });
            r = await payments({ action: 'create', partner: who, amount: o.amount, currency: 'EUR', direction: 'in', allocations });
            if (r.statusCode === 200) paid.push(r.body.payment.id);
          } else if (o.kind === 'allocate') {
            const source = o.note ? { credit_note_id: nth(notes, o.from) } : { payment_id: nth(paid, o.from) };
            const target = nth(invoices, o.which);
            if (Object.values(source)[0] === undefined || target === undefined) continue;
            r = await payments({ action: 'allocate', ...source, allocations: [{ invoice_id: target, amount: o.amount }] });
          } else if (o.kind === 'refund') {
            const source = o.note ? { credit_note_id: nth(notes, o.from) } : { payment_id: nth(paid, o.from) };
            if (Object.values(source)[0] === undefined) continue;
            r = await payments({ action: 'refund', ...source, amount: o.amount });
          } else if (o.kind === 'void') {
            const id = nth(paid, o.which);
            if (id === undefined) continue;
            r = await payments({ action: 'void', payment_id: id });
          } else {
            const id = nth(invoices, o.which);
            if (id === undefined) continue;
            r = await post('/invoicing/invoice/new', { write_off: true, id });
          }
          // Refused or done, never a failure of the server.
          if (r) expect([200, 400]).toContain(r.statusCode);
        }
        await booksAgree();
      }),
      { seed, numRuns: Number(process.env.FC_RUNS ?? 6) },
    );
  }, 600_000);

  async function booksAgree(): Promise<void> {
    const over = await invoicingDb('invoices').whereRaw('amount_paid + written_off_amount > invoicetotal').count('* as n').first();
    expect(Number(over?.n)).toBe(0);
    const overAllocated = await invoicingDb.raw(
      `select p.id from payments p left join payment_allocations a on a.payment_id = p.id and a.status = 'active'
        group by p.id, p.amount, p.refunded, p.allocated having coalesce(sum(a.amount), 0) + p.refunded > p.amount or coalesce(sum(a.amount), 0) <> p.allocated`,
    );
    expect(overAllocated.rows).toEqual([]);
    const unbalanced = await invoicingDb.raw(
      'select e.id from journal_entries e join journal_lines l on l.entry_id = e.id group by e.id having sum(l.debit) <> sum(l.credit)',
    );
    expect(unbalanced.rows).toEqual([]);
    const { rows } = await invoicingDb.raw(
      `select coalesce(sum(l.debit - l.credit), 0) as receivable from journal_lines l join journal_entries e on e.id = l.entry_id
        where e.org_id = 1 and l.account = '1200 Accounts Receivable'`,
    );
    const journalReceivable = Number(rows[0].receivable).toFixed(2);
    // The ledger follows by events: it catches up, exactly once.
    await eventually(async () => {
      const sums = await partnersDb('partners').where({ org_id: 1 }).sum({ balance: 'balance', receivable: 'receivable' }).first();
      expect(Number(sums?.balance).toFixed(2)).toBe(journalReceivable);
      expect(Number(sums?.receivable).toFixed(2)).toBe(journalReceivable);
    });
  }
});
