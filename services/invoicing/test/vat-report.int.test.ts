import { dec, sum } from '@bo/kernel';
import * as testing from '@bo/testkit';
import fc from 'fast-check';
import { vatLinesOfJournal } from '../src/report/vat.report';
import { setAccountingCurrency } from './books.fixtures';
import { body, startWithFakePartners, type FakePartner } from './fixtures';

const OUTPUT = '2200 Tax Payable';
const INPUT = '1400 Tax Receivable';

const partnersTable: FakePartner[] = [
  { org: 1, id: 10, partnername: 'Acme', credit_limit: 0, balance: 0 },
  { org: 2, id: 20, partnername: 'Initech', credit_limit: 0, balance: 0 },
  { org: 3, id: 30, partnername: 'Random', credit_limit: 0, balance: 0 },
];

describe('invoicing service: the VAT report', () => {
  let svc: testing.TestService;

  beforeAll(async () => {
    ({ svc } = await startWithFakePartners(partnersTable));
    await setAccountingCurrency(svc, 1, 'EUR');
  });
  afterAll(async () => {
    await svc?.stop();
  });

  const report = (payload: Record<string, unknown>, org = 1) => svc.call('invoicing.report.run', { report: 'vat', ...payload }, org);

  let seq = 0;
  /** A validated document's posting as validation stores it: the entry and its lines, VAT lines with their category, rate and base. */
  async function posted(
    org: number,
    invoicetype: string,
    date: string,
    lines: Array<{
      account: string;
      debit?: string;
      credit?: string;
      tax_category?: string | null;
      tax_rate?: string | null;
      tax_base?: string | null;
    }>,
  ) {
    seq += 1;
    const [invoice] = await svc
      .db('invoices')
      .insert({
        org_id: org,
        invoicenumber: `VAT-${seq}`,
        invoicetype,
        partner_id: 10,
        invoicestatus: 'open',
        invoicedatetime: `${date}T12:00:00Z`,
      })
      .returning<Array<{ id: number }>>('id');
    const debit = sum(lines.map((l) => dec(l.debit ?? 0)));
    const credit = sum(lines.map((l) => dec(l.credit ?? 0)));
    // The entry balances: the trade account takes the difference.
    const trade = debit.greaterThan(credit) ? { credit: debit.minus(credit).toFixed(2) } : { debit: credit.minus(debit).toFixed(2) };
    const [entry] = await svc
      .db('journal_entries')
      .insert({
        org_id: org,
        invoice_id: invoice!.id,
        kind: 'invoice',
        journalname: 'J',
        journaldate: date,
        amount: '0',
        reference: `VAT-${seq}`,
      })
      .returning<Array<{ id: number }>>('id');
    await svc.db('journal_lines').insert(
      [...lines, { account: '9000 Trade', ...trade }].map((l) => ({
        entry_id: entry!.id,
        label: 'Line',
        debit: '0',
        credit: '0',
        ...l,
      })),
    );
  }

  it('answers rows by direction, category and rate, credit notes negative, and totals the VAT accounts', async () => {
    await posted(1, 'invoiceout', '2026-01-10', [
      // Revenue lines carry their category and rate too; a zero-rated one posts no VAT line, so its base is read from it.
      { account: '4000 Sales Revenue', credit: '225.00', tax_category: 'S', tax_rate: '15', tax_base: '225.00' },
      { account: '4000 Sales Revenue', credit: '40.00', tax_category: 'Z', tax_rate: '0', tax_base: '40.00' },
      { account: OUTPUT, credit: '33.75', tax_category: 'S', tax_rate: '15', tax_base: '225.00' },
      { account: OUTPUT, credit: '0', tax_category: 'K', tax_rate: '0', tax_base: '80.00' },
    ]);
    await posted(1, 'creditout', '2026-01-20', [
      { account: '4000 Sales Revenue', debit: '100.00' },
      { account: OUTPUT, debit: '15.00', tax_category: 'S', tax_rate: '15', tax_base: '100.00' },
    ]);
    await posted(1, 'invoicein', '2026-01-15', [
      { account: '5000 Purchases', debit: '100.00' },
      { account: INPUT, debit: '20.00', tax_category: 'S', tax_rate: '20', tax_base: '100.00' },
    ]);
    // A reverse-charge purchase self-assesses: input and output VAT, net zero.
    await posted(1, 'invoicein', '2026-01-31', [
      { account: '5000 Purchases', debit: '500.00', tax_category: 'AE', tax_rate: '0', tax_base: '500.00' },
      { account: INPUT, debit: '105.00', tax_category: 'AE', tax_rate: '21', tax_base: '500.00' },
      { account: OUTPUT, credit: '105.00', tax_category: 'AE', tax_rate: '21', tax_base: '500.00' },
    ]);
    await posted(1, 'creditin', '2026-01-16', [
      { account: '5000 Purchases', credit: '10.00' },
      { account: INPUT, credit: '2.00', tax_category: 'S', tax_rate: '20', tax_base: '10.00' },
    ]);
    // Outside the period, and another organization's.
    await posted(1, 'invoiceout', '2026-02-01', [
      { account: OUTPUT, credit: '99.00', tax_category: 'S', tax_rate: '15', tax_base: '660.00' },
    ]);
    await posted(1, 'invoiceout', '2025-12-31', [
      { account: OUTPUT, credit: '99.00', tax_category: 'S', tax_rate: '15', tax_base: '660.00' },
    ]);
    await posted(2, 'invoiceout', '2026-01-10', [
      { account: OUTPUT, credit: '99.00', tax_category: 'S', tax_rate: '15', tax_base: '660.00' },
    ]);

    const reply = body(await report({ date_from: '2026-01-01', date_to: '2026-01-31' }));
    expect(reply).toEqual({
      message: 'VAT report computed successfully',
      report: 'vat',
      date_from: '2026-01-01',
      date_to: '2026-01-31',
      currency: 'EUR',
      rows: [
        { direction: 'sales', tax_category: 'S', tax_rate: 15, base: 125, tax: 18.75 },
        { direction: 'sales', tax_category: 'Z', tax_rate: 0, base: 40, tax: 0 },
        { direction: 'sales', tax_category: 'K', tax_rate: 0, base: 80, tax: 0 },
        { direction: 'purchases', tax_category: 'S', tax_rate: 20, base: 90, tax: 18 },
        { direction: 'purchases', tax_category: 'AE', tax_rate: 21, base: 500, tax: 105 },
      ],
      totals: { output_tax: 123.75, input_tax: 123, net_payable: 0.75 },
    });
    // Both ends are inclusive: the last day alone holds the reverse charge.
    expect(body(await report({ date_from: '2026-01-31', date_to: '2026-01-31' })).totals).toEqual({
      output_tax: 105,
      input_tax: 105,
      net_payable: 0,
    });
    // An organization with no accounting currency on record says so.
    expect(body(await report({ date_from: '2026-01-01', date_to: '2026-01-31' }, 2)).currency).toBeNull();
    expect(body(await report({ date_from: '2020-01-01', date_to: '2020-12-31' }))).toMatchObject({
      message: 'No VAT posted in the period',
      rows: [],
      totals: { output_tax: 0, input_tax: 0, net_payable: 0 },
    });
  });

  it('refuses an unknown report and a bad period by name', async () => {
    const refusals = [
      [await report({ report: 'aged', date_from: '2026-01-01', date_to: '2026-01-31' }), 'report'],
      [await report({ date_to: '2026-01-31' }), 'date_from'],
      [await report({ date_from: '2026-01-01', date_to: '2026-02-30' }), 'date_to'],
      [await report({ date_from: '2026-02-01', date_to: '2026-01-31' }), 'date_from'],
      [await report({ date_from: '2016-01-01', date_to: '2026-01-01' }), 'date_to'],
    ] as const;
    for (const [reply, field] of refusals) {
      expect(reply).toMatchObject({ ok: false, status: 400, code: 'validation_failed' });
      expect(!reply.ok && reply.errors?.map((e) => e.field)).toEqual([field]);
    }
    expect(body(await report({ date_from: '2016-01-01', date_to: '2025-12-31' })).report).toBe('vat');
  });

  it('property: for random validated invoices and credit notes, the report totals are the journal VAT accounts, and two halves of a period add up to it (seed printed)', async () => {
    const seed = Number(process.env.FC_SEED ?? Date.now() % 2_147_483_647);
    console.log(`VAT report against the journal: FC_SEED=${seed}`);
    const org = 3;
    let run = 0;
    const line = fc.record({
      quantity: fc.integer({ min: 1, max: 20 }),
      price: fc.integer({ min: 1, max: 100_000 }).map((c) => dec(c).div(100).toFixed(2)),
      discount: fc.constantFrom(0, 0, 5, 12.5),
      tax_rate: fc.constantFrom(0, 5.5, 10, 19, 21),
      tax_included: fc.boolean(),
    });
    const document = fc.record({
      invoicetype: fc.constantFrom('invoiceout', 'creditout', 'invoicein', 'creditin'),
      day: fc.integer({ min: 1, max: 28 }),
      month: fc.constantFrom('01', '02', '03'),
      lines: fc.array(line, { minLength: 1, maxLength: 3 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(document, { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 89 }), async (docs, cutDay) => {
        run += 1;
        const year = 2030 + run;
        for (const d of docs) {
          const created = body(
            await svc.call(
              'invoicing.invoice.create',
              {
                userid: '5',
                invoicetype: d.invoicetype,
                partner: 30,
                invoicedatetime: `${year}-${d.month}-${String(d.day).padStart(2, '0')}T09:00:00`,
                line_items: d.lines.map((l) => ({ product_id: 7, ...l })),
              },
              org,
            ),
          ).invoice;
          body(await svc.call('invoicing.invoice.validate', { userid: '5', validate_invoice: true, id: created.id }, org));
        }
        const from = `${year}-01-01`;
        const to = `${year}-03-31`;
        const whole = body(await report({ date_from: from, date_to: to }, org));
        const journal = await journalVat(org, from, to);
        expect(whole.totals).toEqual({
          output_tax: journal.output.toNumber(),
          input_tax: journal.input.toNumber(),
          net_payable: journal.output.minus(journal.input).toNumber(),
        });
        // Split the quarter at any day: the two reports add up to the whole.
        const cut = new Date(Date.UTC(year, 0, cutDay)).toISOString().slice(0, 10);
        const next = new Date(Date.UTC(year, 0, cutDay + 1)).toISOString().slice(0, 10);
        const first = body(await report({ date_from: from, date_to: cut }, org));
        const second = body(await report({ date_from: next, date_to: to }, org));
        for (const total of ['output_tax', 'input_tax', 'net_payable'] as const)
          expect(dec(first.totals[total]).plus(second.totals[total]).toNumber()).toBe(whole.totals[total]);
        type Figures = { rows: Array<{ base: number; tax: number }> };
        const bases = (r: Record<string, any>) => sum((r as Figures).rows.map((x) => dec(x.base)));
        const taxes = (r: Record<string, any>) => sum((r as Figures).rows.map((x) => dec(x.tax)));
        expect(bases(first).plus(bases(second)).toNumber()).toBe(bases(whole).toNumber());
        expect(taxes(first).plus(taxes(second)).toNumber()).toBe(taxes(whole).toNumber());
      }),
      { seed, numRuns: 15 },
    );
  }, 120_000);

  it('keeps daily totals equal to what the journal lines of each day sum to (the totals rebuilt from the journal give the same rows)', async () => {
    // Run after the tests above posted every kind of document in three organizations over several days.
    type Group = {
      invoicetype: string;
      account: string | null;
      tax_category: string | null;
      tax_rate: unknown;
      debit: unknown;
      credit: unknown;
      base: unknown;
    };
    const key = (g: Group) =>
      [
        g.invoicetype,
        g.account,
        g.tax_category,
        g.tax_rate === null ? null : dec(g.tax_rate as string).toFixed(),
        dec(g.debit as string).toFixed(),
        dec(g.credit as string).toFixed(),
        dec(g.base as string).toFixed(),
      ].join('|');
    let days = 0;
    for (const { org } of partnersTable) {
      const posted = await svc
        .db('journal_entries')
        .where({ org_id: org, kind: 'invoice' })
        .distinct<Array<{ day: string }>>(svc.db.raw('journaldate::text as day'));
      const kept = await svc.db('vat_daily_totals').where({ org_id: org }).distinct<Array<{ day: string }>>(svc.db.raw('day::text as day'));
      expect(kept.map((d) => d.day).sort()).toEqual(posted.map((d) => d.day).sort());
      for (const { day } of posted) {
        const rebuilt = (await vatLinesOfJournal(svc.db, org, day, day)).map(key).sort();
        const totals = (await svc.db('vat_daily_totals').where({ org_id: org, day }).select<Group[]>()).map(key).sort();
        expect(totals).toEqual(rebuilt);
        days += 1;
      }
    }
    expect(days).toBeGreaterThan(3);
  });

  /** The journal's VAT accounts over a period, summed straight from its lines. */
  async function journalVat(org: number, from: string, to: string) {
    const lines = await svc
      .db('journal_lines as l')
      .join('journal_entries as e', 'e.id', 'l.entry_id')
      .where({ 'e.org_id': org })
      .whereBetween('e.journaldate', [from, to])
      .select('l.account', 'l.debit', 'l.credit');
    const on = (account: string) => lines.filter((l) => l.account === account);
    return {
      output: sum(on(OUTPUT).map((l) => dec(l.credit).minus(dec(l.debit)))),
      input: sum(on(INPUT).map((l) => dec(l.debit).minus(dec(l.credit)))),
    };
  }
});
