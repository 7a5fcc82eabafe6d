import { dec, Dec, minorUnit, sum, type DecimalLike } from '@bo/kernel';
import { createDb, type Knex } from '@bo/runtime';
import fc from 'fast-check';
import { einvoiceFailuresOfMany, prepareRules, type EInvoice } from '../support/einvoice';
import { startTestSystem, type ApiResponse, type TestSystem } from '../support/system';

/**
 * One ledger, one truth (issue 40), as a property through the API: random sequences of the books'
 * moves — invoices in 0-, 2- and 3-decimal currencies at rates of up to six decimals, both rounding
 * policies, tax-inclusive and exclusive lines, allowances and charges, partial credit notes, payments
 * with and without allocations, allocations, refunds, voids, write-offs and lock dates — each in an
 * organization of its own whose accounting currency is one of JPY, EUR, KWD. After every step the
 * views of money are held against each other, not against a formula of their own: the journal
 * balances; for the customer and for a vendor alike, the partner's balance (the partners list and
 * its balance view), its aged total (receivables, payables), its statement's closing balance (its
 * side) and the journal's trade lines (receivable, payable) agree to the minor unit; every open
 * amount, in the document's currency, is its total less what settled it; no cash leaves beyond what
 * came in. The vendor side has its bills, vendor credit notes and payments out, allocated, refunded
 * and voided as the customer's are (write-offs are a customer's bad debt only). Reminders run with
 * `post_fees`, so a letter's fee is a customer invoice of its own (taxed or exempt), settled, credited and
 * written off like any other. At the end of a sequence the
 * VAT report's output tax is the sum of the issued documents' VAT in the accounting currency as their
 * e-invoices state it (BT-111, or BT-110 in the accounting currency itself), and a sample of the
 * e-invoices passes the official EN 16931 rules.
 *
 * PROPERTY_RUNS sequences (default 300), PROPERTY_SEED to replay; the seed is printed.
 */
const RUNS = Number(process.env.PROPERTY_RUNS ?? 300);
const seed = Number(process.env.PROPERTY_SEED ?? Date.now() % 2_147_483_647);
/** Sequences in flight at once, each in its own organization. */
const PARALLEL = 4;
/** E-invoices checked against the EN 16931 rules after the run, spread over it. */
const EINVOICES = Number(process.env.PROPERTY_EINVOICES ?? 60);

const RECEIVABLE = '1200 Accounts Receivable';
const PAYABLE = '2000 Accounts Payable';
const CURRENCIES = ['EUR', 'JPY', 'KWD'] as const;
type Currency = (typeof CURRENCIES)[number];
const places = (c: string) => minorUnit(c) ?? 2;
const fixed = (v: DecimalLike, c: string) => dec(v).toFixed(places(c));

/** A step, resolved against the books as they stand when it runs (fractions pick amounts and targets). */
type Step =
  | {
      kind: 'invoice';
      /** A vendor's bill (invoicein) instead of a customer invoice. */
      vendor: boolean;
      currency: Currency;
      rate: number;
      lines: Array<{ quantity: number; units: number; tax: 0 | 7 | 19 | 20; included: boolean }>;
      allowancePercent: number | null;
      chargeUnits: number | null;
    }
  | { kind: 'credit'; pick: number; fraction: number; rate: number }
  | { kind: 'pay'; vendor: boolean; pick: number; fraction: number; allocate: boolean; rate: number }
  | { kind: 'allocate'; pick: number; target: number; fraction: number }
  | { kind: 'refund'; pick: number; fraction: number; rate: number }
  | { kind: 'void'; pick: number }
  | { kind: 'write_off'; pick: number }
  | { kind: 'lock' }
  /** A dunning run on the step's day; the first sets the levels: a fee (in each invoice's currency) at both, VAT on it or not. */
  | { kind: 'remind'; fee: '2' | '5' | '7.5' | '12.25'; taxed: boolean };

interface Sequence {
  accounting: Currency;
  rounding: 'line' | 'document';
  steps: Step[];
}

const rateArb = fc.integer({ min: 1_000, max: 3_000_000 }); // micro-units: 0.001000 .. 3.000000
const fractionArb = fc.integer({ min: 1, max: 1000 });
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('invoice' as const),
      vendor: fc.boolean(),
      currency: fc.constantFrom(...CURRENCIES),
      rate: rateArb,
      lines: fc.array(
        fc.record({
          quantity: fc.constantFrom(1, 2, 3, 7, 0.5, 1.25),
          units: fc.integer({ min: 1, max: 50_000 }),
          tax: fc.constantFrom(0 as const, 7 as const, 19 as const, 20 as const),
          included: fc.boolean(),
        }),
        { minLength: 1, maxLength: 3 },
      ),
      allowancePercent: fc.option(fc.constantFrom(2, 5, 10), { freq: 4 }),
      chargeUnits: fc.option(fc.integer({ min: 1, max: 2_000 }), { freq: 4 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('credit' as const), pick: fc.nat(), fraction: fractionArb, rate: rateArb }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('pay' as const),
      vendor: fc.boolean(),
      pick: fc.nat(),
      fraction: fractionArb,
      allocate: fc.boolean(),
      rate: rateArb,
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('allocate' as const), pick: fc.nat(), target: fc.nat(), fraction: fractionArb }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('refund' as const), pick: fc.nat(), fraction: fractionArb, rate: rateArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('void' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('write_off' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('lock' as const) }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('remind' as const), fee: fc.constantFrom('2', '5', '7.5', '12.25'), taxed: fc.boolean() }),
  },
);
const sequenceArb: fc.Arbitrary<Sequence> = fc.record({
  accounting: fc.constantFrom(...CURRENCIES),
  rounding: fc.constantFrom('line' as const, 'document' as const),
  steps: fc.array(stepArb, { minLength: 2, maxLength: 9 }),
});

/** The sequence's n-th day: steps run forward, three days apart, from a Monday. */
const dayOf = (n: number) => new Date(Date.UTC(2025, 0, 6 + 3 * n)).toISOString().slice(0, 10);
const FIRST_DAY = dayOf(0);
/** Far enough after every step that each report reads all of them. */
const HORIZON = dayOf(40);

type Side = 'customer' | 'vendor';
interface Doc {
  id: number;
  side: Side;
  invoicetype: 'invoiceout' | 'creditout' | 'invoicein' | 'creditin';
  currency: string;
  total: Dec;
  due: Dec;
  status: string;
  lines: Array<Record<string, unknown>>;
  rate: string | null;
}
interface Cash {
  id: number;
  side: Side;
  currency: string;
  unallocated: Dec;
  status: string;
  refunds: number;
}

describe('one ledger: every view of money agrees, a property through the API', () => {
  let sys: TestSystem;
  let db: Knex;
  let nextOrg = 100;
  const sampledEInvoices: Array<EInvoice & { label: string }> = [];
  let issued = 0;
  /** Steps carried out (not skipped for want of a target, not refused), by kind and side: the run must have tried each. */
  const carriedOut: Record<string, number> = Object.fromEntries(
    [
      ...['invoice', 'credit', 'pay', 'allocate', 'refund', 'void'].flatMap((kind) => [kind, `${kind} (vendor)`]),
      'write_off',
      'lock',
      'remind',
    ].map((kind) => [kind, 0]),
  );
  const carried = (kind: Step['kind'], side: Side = 'customer') => {
    const key = side === 'vendor' ? `${kind} (vendor)` : kind;
    carriedOut[key] = (carriedOut[key] ?? 0) + 1;
  };

  beforeAll(async () => {
    prepareRules();
    sys = await startTestSystem({ services: ['partners', 'catalog', 'sales', 'invoicing'], bus: 'in-process' });
    db = createDb(sys.databaseUrl, 'invoicing', 4);
  }, 300_000);
  afterAll(async () => {
    await db?.destroy();
    await sys?.stop();
  }, 120_000);

  it(`keeps balance = aged = statement = journal and VAT report = Σ BT-111 over ${RUNS} random sequences (seed ${seed})`, async () => {
    console.log(`one-ledger property: seed ${seed}, ${RUNS} sequences (replay with PROPERTY_SEED=${seed} PROPERTY_RUNS=${RUNS})`);
    const sequences = fc.sample(sequenceArb, { seed, numRuns: RUNS });
    const step = Math.max(1, Math.floor(RUNS / Math.max(1, EINVOICES / 2)));
    let done = 0;
    for (let i = 0; i < sequences.length; i += PARALLEL) {
      await Promise.all(
        sequences.slice(i, i + PARALLEL).map((sequence, j) =>
          run(sequence, (i + j) % step === 0).catch((err: unknown) => {
            const e = err instanceof Error ? err : new Error(String(err));
            e.message = `${e.message}\nseed ${seed}, sequence ${i + j}: ${JSON.stringify(sequence)}`;
            throw e;
          }),
        ),
      );
      done += Math.min(PARALLEL, sequences.length - i);
    }
    expect(done).toBe(RUNS);
    console.log(`one-ledger property: steps carried out ${JSON.stringify(carriedOut)}`);
    // Every kind of step was carried out; in a CI run (default 300) or more, each on both sides too, but
    // an allocation, which needs credit left and a document of its side and currency open (a few in a
    // run), on one side at least.
    const byKind = new Map<string, number>();
    for (const [kind, n] of Object.entries(carriedOut))
      byKind.set(kind.replace(' (vendor)', ''), (byKind.get(kind.replace(' (vendor)', '')) ?? 0) + n);
    if (RUNS >= 50) for (const [kind, n] of byKind) expect([kind, n > 0]).toEqual([kind, true]);
    if (RUNS >= 300)
      for (const [kind, n] of Object.entries(carriedOut).filter(([k]) => !k.startsWith('allocate')))
        expect([kind, n > 0]).toEqual([kind, true]);
    expect(issued).toBeGreaterThan(0);
    // The rules run synchronously in this process, which also runs the services: checked once no request is in flight.
    const failures = await einvoiceFailuresOfMany(sampledEInvoices);
    expect(sampledEInvoices.map(({ label }, i) => `${label}: ${failures[i]}`)).toEqual(sampledEInvoices.map(({ label }) => `${label}: `));
  }, 3_600_000);

  async function run(sequence: Sequence, sampleEInvoices: boolean): Promise<void> {
    const org = nextOrg++;
    const key = await sys.system.createApiKey(org);
    const acct = sequence.accounting;
    const post = async (path: string, body: Record<string, unknown>): Promise<ApiResponse> =>
      sys.post(path, { org_id: org, userid: 'prop', ...body }, { key });
    const ok = async (path: string, body: Record<string, unknown>): Promise<Record<string, any>> => {
      const r = await post(path, body);
      if (r.statusCode !== 200)
        throw new Error(`${path} ${JSON.stringify(body)}: expected 200, got ${r.statusCode} ${JSON.stringify(r.body)}`);
      return r.body;
    };

    await ok('/organization/setprofile', {
      legal_name: `Seller ${org} GmbH`,
      address_line1: 'Hauptstrasse 1',
      city: 'Berlin',
      postal_code: '10115',
      country: 'DE',
      email: 'billing@seller.test',
      vat_id: 'DE123456789',
      company_id: 'HRB 12345',
      default_currency: acct,
      rounding: sequence.rounding,
    });
    const customer = (
      await ok('/crm/editpatner', {
        action: 'create',
        partnername: `Buyer ${org}`,
        partner_type: 'customer',
        tax_number: 'NL123456789B01',
        address_line1: 'Damrak 1',
        city: 'Amsterdam',
        postal_code: '1012 LG',
        country: 'NL',
        email: 'ap@buyer.test',
      })
    ).partner.id as number;
    const vendor = (await ok('/crm/editpatner', { action: 'create', partnername: `Supplier ${org}`, partner_type: 'vendor' })).partner
      .id as number;
    const partnerOf = (side: Side) => (side === 'customer' ? customer : vendor);
    const product = (await ok('/inventory/editproduct', { name: 'Consulting', type: 'service' })).product.id as number;
    // Invoicing sees the organization's settings and the partner by their events.
    await sys.eventsSettled();

    const docs: Doc[] = [];
    const cash: Cash[] = [];
    let levelsSet = false;
    const rateFor = (currency: string, micro: number) => (currency === acct ? {} : { exchange_rate: (micro / 1e6).toFixed(6) });

    async function refresh(): Promise<void> {
      const { invoices } = await ok('/invoicing/listinvoices', { partner_ids: [customer, vendor], page_size: 100 });
      for (const inv of invoices as Array<Record<string, any>>) {
        const doc = docs.find((d) => d.id === inv.id);
        if (doc) Object.assign(doc, { due: dec(inv.due_amount), status: inv.invoicestatus });
      }
      for (const partner of [customer, vendor]) {
        const { payments } = await ok('/invoicing/payments', { action: 'list', partner, page_size: 100 });
        for (const p of payments as Array<Record<string, any>>) {
          const c = cash.find((x) => x.id === p.id);
          if (c) Object.assign(c, { unallocated: dec(p.unallocated), status: p.status, refunds: p.refunds.length });
        }
      }
    }
    const pick = <T>(items: T[], n: number): T | undefined => (items.length === 0 ? undefined : items[n % items.length]);
    const part = (of: Dec, fraction: number, currency: string) => {
      const unit = dec(1).div(10 ** places(currency));
      const amount = of.times(fraction).div(1000).toDecimalPlaces(places(currency), Dec.ROUND_DOWN);
      return amount.lt(unit) ? unit : amount;
    };
    /** What can be allocated or refunded, on either side: payments with money left, and credit notes with credit left. */
    const creditSources = () => [
      ...cash
        .filter((c) => c.status === 'posted' && c.unallocated.gt(0))
        .map((c) => ({ payment_id: c.id, side: c.side, currency: c.currency, left: c.unallocated })),
      ...docs
        .filter((d) => (d.invoicetype === 'creditout' || d.invoicetype === 'creditin') && d.due.gt(0))
        .map((d) => ({ credit_note_id: d.id, side: d.side, currency: d.currency, left: d.due })),
    ];
    const isInvoice = (d: Doc) => d.invoicetype === 'invoiceout' || d.invoicetype === 'invoicein';
    const openInvoices = (side: Side) =>
      docs.filter((d) => d.side === side && isInvoice(d) && d.due.gt(0) && ['open', 'overdue'].includes(d.status));

    for (const [n, s] of sequence.steps.entries()) {
      const day = dayOf(n + 1);
      switch (s.kind) {
        case 'invoice': {
          const money = (units: number) => (units / 10 ** places(s.currency)).toFixed(places(s.currency));
          const line_items = s.lines.map((l) => ({
            product_id: product,
            quantity: l.quantity,
            price: money(l.units),
            tax_rate: l.tax,
            tax_category: l.tax === 0 ? 'Z' : 'S',
            tax_included: l.included,
          }));
          const first = line_items[0]!;
          const allowances_charges = [
            ...(s.allowancePercent
              ? [
                  {
                    charge: false,
                    percent: s.allowancePercent,
                    reason_code: '95',
                    tax_category: first.tax_category,
                    tax_rate: first.tax_rate,
                  },
                ]
              : []),
            ...(s.chargeUnits
              ? [
                  {
                    charge: true,
                    amount: money(s.chargeUnits),
                    reason: 'Freight',
                    tax_category: first.tax_category,
                    tax_rate: first.tax_rate,
                  },
                ]
              : []),
          ];
          const side: Side = s.vendor ? 'vendor' : 'customer';
          const { invoice } = await ok('/invoicing/invoice/new', {
            invoicetype: s.vendor ? 'invoicein' : 'invoiceout',
            partner: partnerOf(side),
            currency: s.currency,
            ...rateFor(s.currency, s.rate),
            invoicedatetime: `${day}T10:00:00`,
            // Due at the next step: a reminder run a step or two later finds it overdue.
            invoicedue: dayOf(n + 2),
            line_items,
            allowances_charges,
          });
          await ok('/invoicing/invoice/new', { validate_invoice: true, id: invoice.id });
          docs.push({
            id: invoice.id,
            side,
            invoicetype: s.vendor ? 'invoicein' : 'invoiceout',
            currency: s.currency,
            total: dec(invoice.invoicetotal),
            due: dec(invoice.invoicetotal),
            status: 'open',
            lines: invoice.line_items,
            rate: invoice.exchange_rate === null ? null : String(invoice.exchange_rate),
          });
          carried('invoice', side);
          break;
        }
        case 'credit': {
          const of = pick(
            docs.filter((d) => isInvoice(d) && ['open', 'overdue', 'paid'].includes(d.status)),
            s.pick,
          );
          if (!of) break;
          const line = of.lines[0]!;
          const quantity = Math.max(0.01, Math.floor(Number(line.quantity) * s.fraction) / 1000);
          const noteType = of.side === 'vendor' ? ('creditin' as const) : ('creditout' as const);
          const { invoice: note } = await ok('/invoicing/invoice/new', {
            invoicetype: noteType,
            partner: partnerOf(of.side),
            currency: of.currency,
            ...rateFor(of.currency, s.rate),
            invoicedatetime: `${day}T10:00:00`,
            sourcetype: 'invoice',
            sourceid: String(of.id),
            restock: false,
            line_items: [
              {
                product_id: product,
                quantity,
                price: fixed(line.price as number, of.currency),
                tax_rate: line.tax_rate,
                tax_category: line.tax_category,
                tax_included: line.tax_included,
                // A fee invoice's exempt line names its exemption; its credit note's line does too.
                ...(line.tax_exemption_reason ? { tax_exemption_reason: line.tax_exemption_reason } : {}),
              },
            ],
          });
          const credited = sum(
            docs.filter((d) => d.invoicetype === noteType && (d as Doc & { of?: number }).of === of.id).map((d) => d.total),
          );
          const fits = credited.plus(note.invoicetotal).lte(of.total);
          const r = await post('/invoicing/invoice/new', { validate_invoice: true, id: note.id });
          if (!fits) {
            expect([r.statusCode, r.body.code]).toEqual([400, 'credit_exceeds_invoice']);
            break;
          }
          expect([r.statusCode, r.body.code]).toEqual([200, undefined]);
          docs.push(
            Object.assign(
              {
                id: note.id,
                side: of.side,
                invoicetype: noteType,
                currency: of.currency,
                total: dec(note.invoicetotal),
                due: dec(note.invoicetotal),
                status: 'open',
                lines: note.line_items,
                rate: note.exchange_rate === null ? null : String(note.exchange_rate),
              },
              { of: of.id },
            ),
          );
          carried('credit', of.side);
          break;
        }
        case 'pay': {
          const side: Side = s.vendor ? 'vendor' : 'customer';
          const target = pick(openInvoices(side), s.pick);
          const currency = target?.currency ?? acct;
          const amount = part(target?.due ?? dec(100), s.fraction, currency);
          const { payment } = await ok('/invoicing/payments', {
            action: 'create',
            partner: partnerOf(side),
            direction: s.vendor ? 'out' : 'in',
            amount: amount.toFixed(places(currency)),
            currency,
            ...rateFor(currency, s.rate),
            payment_date: day,
            ...(target && s.allocate ? { allocations: [{ invoice_id: target.id, amount: amount.toFixed(places(currency)) }] } : {}),
          });
          cash.push({ id: payment.id, side, currency, unallocated: dec(payment.unallocated), status: payment.status, refunds: 0 });
          carried('pay', side);
          break;
        }
        case 'allocate': {
          // Among the sources that have a document to settle (its partner's, in its currency), so that
          // allocations happen on both sides at all.
          const source = pick(
            creditSources().filter((c) => openInvoices(c.side).some((d) => d.currency === c.currency)),
            s.pick,
          );
          const target =
            source &&
            pick(
              openInvoices(source.side).filter((d) => d.currency === source.currency),
              s.target,
            );
          if (!source || !target) break;
          const most = Dec.min(source.left, target.due);
          const { left: _left, currency, side: _side, ...named } = source;
          await ok('/invoicing/payments', {
            action: 'allocate',
            ...named,
            allocation_date: day,
            allocations: [{ invoice_id: target.id, amount: part(most, s.fraction, currency).toFixed(places(currency)) }],
          });
          carried('allocate', source.side);
          break;
        }
        case 'refund': {
          const source = pick(creditSources(), s.pick);
          if (!source) break;
          const { left, currency, side: _side, ...named } = source;
          await ok('/invoicing/payments', {
            action: 'refund',
            ...named,
            refund_date: day,
            amount: part(left, s.fraction, currency).toFixed(places(currency)),
            ...rateFor(currency, s.rate),
          });
          carried('refund', source.side);
          break;
        }
        case 'void': {
          const payment = pick(
            cash.filter((c) => c.status === 'posted'),
            s.pick,
          );
          if (!payment) break;
          const r = await post('/invoicing/payments', { action: 'void', payment_id: payment.id, void_date: day });
          // A payment with refunds, or settling an invoice written off since, stays: the refusal changes nothing.
          const settlesWrittenOff = await db('payment_allocations as a')
            .join('invoices as i', 'i.id', 'a.invoice_id')
            .where({ 'a.payment_id': payment.id, 'a.status': 'active', 'i.invoicestatus': 'written_off' })
            .first();
          if (payment.refunds > 0 || settlesWrittenOff) expect([r.statusCode, r.body.code]).toEqual([400, 'invalid_state']);
          else {
            expect([r.statusCode, r.body.code]).toEqual([200, undefined]);
            carried('void', payment.side);
          }
          break;
        }
        case 'write_off': {
          const target = pick(openInvoices('customer'), s.pick);
          if (!target) break;
          await ok('/invoicing/invoice/new', { write_off: true, id: target.id, write_off_date: day });
          carried('write_off');
          break;
        }
        case 'remind': {
          if (!levelsSet) {
            await ok('/invoicing/dunning', {
              action: 'levels',
              levels: [
                { level: 1, days_after_due: 1, fee: s.fee, interest: false, text: 'Reminder' },
                { level: 2, days_after_due: 4, fee: s.fee, interest: false, text: 'Second reminder' },
              ],
              post_fees: true,
              ...(s.taxed ? { fee_tax: { category: 'S', rate: 19 } } : {}),
            });
            levelsSet = true;
          }
          const { letters } = await ok('/invoicing/dunning', { action: 'run', as_of: day });
          for (const letter of letters as Array<Record<string, any>>) {
            if (letter.fee_invoice_id === null) continue;
            const [fee] = (await ok('/invoicing/getinvoice', { id: letter.fee_invoice_id, include_items: true })).invoices;
            // In the reminded invoice's currency, at its rate; the letter's fee is what the fee invoice asks.
            const reminded = docs.find((d) => d.id === letter.invoice_id)!;
            expect([letter.currency, fixed(fee.invoicetotal, letter.currency)]).toEqual([
              reminded.currency,
              fixed(letter.fee, letter.currency),
            ]);
            docs.push({
              id: fee.id,
              side: 'customer',
              invoicetype: 'invoiceout',
              currency: reminded.currency,
              total: dec(fee.invoicetotal),
              due: dec(fee.due_amount),
              status: fee.invoicestatus,
              lines: fee.line_items,
              rate: reminded.rate,
            });
            carried('remind');
          }
          break;
        }
        case 'lock': {
          // The books close up to yesterday: a payment dated then is refused by field and changes nothing.
          const yesterday = dayOf(n);
          await ok('/organization/setprofile', { lock_date: yesterday });
          const entries = await db('journal_entries').where({ org_id: org }).count<{ count: string }[]>({ count: '*' });
          const r = await post('/invoicing/payments', {
            action: 'create',
            partner: customer,
            direction: 'in',
            amount: '1',
            currency: acct,
            payment_date: yesterday,
          });
          expect([r.statusCode, (r.body.errors ?? []).map((e: { field: string }) => e.field)]).toEqual([400, ['payment_date']]);
          expect(await db('journal_entries').where({ org_id: org }).count<{ count: string }[]>({ count: '*' })).toEqual(entries);
          carried('lock');
          break;
        }
      }
      await refresh();
      await agree(`after step ${n} (${s.kind})`);
    }
    await vatAgrees();

    /** Every view of each partner's money tells the journal's figure; every open amount is its total less what settled it. */
    async function agree(when: string): Promise<void> {
      const unbalanced = await db.raw(
        `select e.id from journal_entries e join journal_lines l on l.entry_id = e.id where e.org_id = ?
          group by e.id having sum(l.debit) <> sum(l.credit)`,
        [org],
      );
      expect({ when, unbalanced: unbalanced.rows }).toEqual({ when, unbalanced: [] });
      await sys.eventsSettled();
      const { partners: listed } = await ok('/crm/partners', {});
      for (const side of ['customer', 'vendor'] as const) await sideAgrees(when, side, listed as Array<Record<string, any>>);
      for (const note of docs.filter((d) => !isInvoice(d))) expect(note.due.gte(0) && note.due.lte(note.total)).toBe(true);
    }

    /**
     * One side of the books: the partner's trade lines in the journal (debit − credit: what a customer
     * owes, minus what is owed to a vendor), its balance in the list and the balance view (the same
     * sign), its aged total and its statement's closing balance (what it owes, what is owed to it).
     */
    async function sideAgrees(when: string, side: Side, listed: Array<Record<string, any>>): Promise<void> {
      const partner = partnerOf(side);
      const sign = side === 'customer' ? 1 : -1;
      const { rows } = await db.raw(
        `select coalesce(sum(l.debit - l.credit), 0)::text as moved from journal_lines l join journal_entries e on e.id = l.entry_id
          where e.org_id = ? and l.account = ?
            and (e.invoice_id in (select id from invoices where partner_id = ?) or e.payment_id in (select id from payments where partner_id = ?))`,
        [org, side === 'customer' ? RECEIVABLE : PAYABLE, partner, partner],
      );
      const journal = fixed(rows[0].moved, acct);
      const aged = await ok('/invoicing/reports', { report: side === 'customer' ? 'aged_receivables' : 'aged_payables', as_of: HORIZON });
      const row = (aged.partners as Array<Record<string, any>>).find((p) => p.partner === partner);
      const statement = await ok('/invoicing/reports', { report: 'statement', partner, side, date_from: FIRST_DAY, date_to: HORIZON });
      const view = await ok('/crm/partners', { partner_id: partner });
      const inList = listed.find((p) => p.id === partner);
      expect({
        when,
        side,
        aged: fixed(dec(row?.total ?? 0).times(sign), acct),
        statement: fixed(dec(statement.closing_balance).times(sign), acct),
        balance: fixed(view.partner.balance, acct),
        list: fixed(inList?.balance, acct),
      }).toEqual({
        when,
        side,
        aged: journal,
        statement: journal,
        balance: journal,
        list: journal,
      });
      const lastLine = (statement.lines as Array<{ balance: number }>).at(-1);
      expect(fixed(dec(lastLine?.balance ?? statement.opening_balance).times(sign), acct)).toBe(journal);

      // Open amounts in each document's currency: total less active allocations and what was written off.
      for (const doc of docs.filter((d) => d.side === side && isInvoice(d))) {
        const settled = await db('payment_allocations')
          .where({ invoice_id: doc.id, status: 'active' })
          .sum<{ s: string }[]>({ s: 'amount' });
        const written = await db('invoices').where({ id: doc.id }).first('written_off_amount');
        const expected = doc.total.minus(settled[0]?.s ?? 0).minus(written?.written_off_amount ?? 0);
        const open = (row?.documents as Array<Record<string, any>> | undefined)?.find((d) => d.invoice_id === doc.id);
        expect({
          when,
          doc: doc.id,
          due: fixed(doc.due, doc.currency),
          aged: fixed(open?.open_amount_currency ?? 0, doc.currency),
        }).toEqual({
          when,
          doc: doc.id,
          due: fixed(expected, doc.currency),
          aged: fixed(expected, doc.currency),
        });
      }
      // No cash leaves beyond what came in (or went out): what a payment settled and paid back never exceeds it.
      const { payments } = await ok('/invoicing/payments', { action: 'list', partner, page_size: 100 });
      for (const p of payments as Array<Record<string, any>>) {
        expect(dec(p.unallocated).gte(0)).toBe(true);
        if (p.status === 'posted')
          expect(fixed(dec(p.allocated).plus(p.refunded).plus(p.unallocated), p.currency)).toBe(fixed(p.amount, p.currency));
      }
    }

    /** The VAT report's output tax is the issued documents' VAT in the accounting currency, as their e-invoices (or PDFs) state it. */
    async function vatAgrees(): Promise<void> {
      // Output tax: the customer's documents (bills and vendor credit notes are input tax).
      const sales = docs.filter((d) => d.side === 'customer');
      if (sales.length === 0) return;
      const report = await ok('/invoicing/reports', { report: 'vat', date_from: FIRST_DAY, date_to: HORIZON });
      const stated: Dec[] = [];
      for (const doc of sales) {
        const vat = await statedVat(doc);
        stated.push(doc.invoicetype === 'creditout' ? vat.neg() : vat);
      }
      expect(fixed(report.totals.output_tax, acct)).toBe(fixed(sum(stated), acct));
    }

    async function statedVat(doc: Doc): Promise<Dec> {
      const renders = places(doc.currency) <= 2 && places(acct) <= 2;
      if (renders) {
        const r = await ok('/invoicing/getinvoice', { id: doc.id, format: 'ubl' });
        const xml = Buffer.from(r.content_base64, 'base64').toString('utf8');
        issued++;
        if (sampleEInvoices && sampledEInvoices.length < EINVOICES)
          sampledEInvoices.push({ syntax: 'ubl', xml, label: `org ${org} ${doc.invoicetype} ${doc.id} in ${doc.currency}` });
        const totals = [...xml.matchAll(/<cac:TaxTotal>\s*<cbc:TaxAmount currencyID="(\w+)">([-\d.]+)</g)].map(
          (m) => [m[1], m[2]] as const,
        );
        const inAccounting = totals.find(([c]) => c === acct);
        if (!inAccounting)
          throw new Error(
            `org ${org}: ${doc.invoicetype} ${doc.id} in ${doc.currency} states no VAT in ${acct}: ${JSON.stringify(totals)}`,
          );
        return dec(inAccounting[1]);
      }
      // A three-decimal currency is no e-invoice: its PDF states the VAT in the accounting currency.
      const r = await ok('/invoicing/getinvoice', { id: doc.id, format: 'pdf' });
      const text = pdfText(Buffer.from(r.content_base64, 'base64'));
      // The totals column: `Tax  KWD 4.489` in the document's own currency, `Tax in EUR  €24.00` in another.
      const amount = String.raw`(-?)\D*?([\d,]+(?:\.\d+)?)\s*$`;
      const label = new RegExp((doc.currency === acct ? String.raw`\sTax\s+` : String.raw`Tax in ${acct}\s+`) + amount, 'm');
      const m = label.exec(text);
      if (!m) throw new Error(`org ${org}: the PDF of ${doc.invoicetype} ${doc.id} states no VAT in ${acct}:\n${text}`);
      return dec(`${m[1]}${m[2]!.replace(/,/g, '')}`);
    }
  }
});

function pdfText(pdf: Buffer): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { execFileSync } = require('node:child_process') as typeof import('node:child_process');
  return execFileSync('pdftotext', ['-layout', '-', '-'], { input: pdf }).toString('utf8');
}
