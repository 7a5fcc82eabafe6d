import { dec } from '@bo/kernel';
import { createDb, type Knex } from '@bo/runtime';
import { camt053, creditorReference, csv, csvMapping, mt940, type TestStatement, type TestStatementLine } from '../support/bank-files';
import { newProducts } from '../support/catalog';
import { iso20022Failures } from '../support/iso20022';
import { ok } from '../support/invoicing';
import { startTestSystem, type TestSystem } from '../support/system';

/**
 * Bank statements through the gateway (docs/bank.md): a camt.053 of 200 lines written from the
 * organization's own open invoices (exact references, partial payments, wrong references with the
 * right amount, bank fees, unknown payers, a repeated line) imports, reconciles the exact ones,
 * suggests the rest with reasons; reconciled by hand, the bank account equals the closing balance;
 * a second import changes nothing; MT940 and CSV of the same lines give the same result.
 */
const IBAN = 'DE89370400440532013000';
const FEES = '6800 Bank Charges';
const SUSPENSE = '2900 Unidentified Receipts';

describe('bank reconciliation, end to end', () => {
  let sys: TestSystem;
  let db: Knex;
  const products: Record<number, number> = {};

  beforeAll(async () => {
    // The import reconciles 55 lines in its one transaction: on a shared 2-core machine that can take longer than the default 5 s RPC timeout.
    sys = await startTestSystem({ env: { RPC_TIMEOUT_MS: '60000' } });
    db = createDb(sys.databaseUrl, 'invoicing', 2);
    [products[1]] = (await newProducts(sys, ['Consulting'])) as [number];
    [products[2]] = (await newProducts(sys, ['Consulting'], { org: 2 })) as [number];
  }, 120_000);
  afterAll(async () => {
    await db?.destroy();
    await sys?.stop();
  });

  const post = (org: 1 | 2, path: string, body: Record<string, unknown>) =>
    sys.post(path, { org_id: org, userid: 'e2e', ...body }, { org });
  const bank = (org: 1 | 2, body: Record<string, unknown>) => post(org, '/invoicing/bank', body);

  interface Setup {
    customers: { id: number; iban: string }[];
    invoices: { id: number; number: string; partner: number; iban: string; total: string }[];
  }

  async function setUp(org: 1 | 2, tag: number): Promise<Setup> {
    await ok(post(org, '/organization/setprofile', { default_currency: 'EUR', iban: IBAN, legal_name: `Org ${org}` }));
    const customers: Setup['customers'] = [];
    for (let i = 0; i < 5; i++) {
      const r = await ok(
        post(org, '/crm/editpatner', { action: 'create', partnername: `Customer ${i}`, partner_type: 'customer', currency: 'EUR' }),
      );
      customers.push({ id: r.body.partner.id, iban: `DE021203000000002020${tag}${i}` });
    }
    const invoices: Setup['invoices'] = [];
    for (let i = 0; i < 65; i++) {
      const customer = customers[i % customers.length]!;
      const price = `${100 + i}.${String(i % 100).padStart(2, '0')}`;
      const inv = (
        await ok(
          post(org, '/invoicing/invoice/new', {
            invoicetype: 'invoiceout',
            partner: customer.id,
            line_items: [{ product_id: products[org], quantity: 1, price, tax_rate: 0, tax_included: false }],
          }),
        )
      ).body.invoice;
      await ok(post(org, '/invoicing/invoice/new', { validate_invoice: true, id: inv.id }));
      invoices.push({ id: inv.id, number: inv.invoicenumber, partner: customer.id, iban: customer.iban, total: dec(price).toFixed(2) });
    }
    await ok(bank(org, { action: 'rules', rule_action: 'create', name: 'fees', match_text: 'bank fee', account: FEES }));
    return { customers, invoices };
  }

  /** 200 lines: 50 exact, 5 partial, 10 wrong references with the right amount and the number in the text, 50 fees, 84 unknown payers, 1 repeated. */
  function statementOf(setup: Setup, date: string, prefix = '', opening = '1000.00'): TestStatement {
    const lines: TestStatementLine[] = [];
    const inv = setup.invoices;
    inv.slice(0, 50).forEach((v, i) =>
      lines.push({
        amount: v.total,
        booking_date: date,
        bank_reference: `${prefix}EX-${i}`,
        structured_reference: creditorReference(v.number),
        name: `Customer`,
        iban: v.iban,
      }),
    );
    inv.slice(50, 55).forEach((v, i) =>
      lines.push({
        amount: dec(v.total).div(2).toFixed(2),
        booking_date: date,
        bank_reference: `${prefix}PA-${i}`,
        structured_reference: creditorReference(v.number),
        iban: v.iban,
      }),
    );
    inv
      .slice(55, 65)
      .forEach((v, i) =>
        lines.push({ amount: v.total, booking_date: date, bank_reference: `${prefix}WR-${i}`, text: `Payment for ${v.number} thanks` }),
      );
    for (let i = 0; i < 50; i++)
      lines.push({
        amount: `-${(1 + (i % 3) * 0.25).toFixed(2)}`,
        booking_date: date,
        bank_reference: `${prefix}FE-${i}`,
        text: `Bank fee ${i}`,
      });
    for (let i = 0; i < 84; i++)
      lines.push({
        amount: `${(7 + i * 1.37).toFixed(2)}`,
        booking_date: date,
        bank_reference: `${prefix}UN-${i}`,
        text: `Gift ${i}`,
        name: `Stranger ${i}`,
      });
    lines.push({ ...lines[3]! });
    const unique = lines.slice(0, -1);
    const closing = unique.reduce((s, l) => s.plus(dec(l.amount)), dec(opening)).toFixed(2);
    return { id: `STMT-${prefix}${date}`, sequence: prefix ? 2 : 1, iban: IBAN, currency: 'EUR', opening, closing, date, lines };
  }

  const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

  async function bankBalance(org: 1 | 2): Promise<string> {
    const row = await db('journal_lines as l')
      .join('journal_entries as e', 'e.id', 'l.entry_id')
      .where({ 'e.org_id': org, 'l.account': 'Bank' })
      .select(db.raw('coalesce(sum(l.debit) - sum(l.credit), 0) as balance'))
      .first();
    return dec(row.balance).toFixed(2);
  }
  async function lineStatuses(org: 1 | 2): Promise<Record<string, string>> {
    const rows = await db('bank_lines').where({ org_id: org }).select('bank_reference', 'status');
    return Object.fromEntries(rows.map((r: { bank_reference: string; status: string }) => [r.bank_reference, r.status]));
  }
  async function tableCounts(org: 1 | 2): Promise<string> {
    const out: string[] = [];
    for (const t of ['bank_statements', 'bank_lines', 'bank_reconciliations', 'payments', 'journal_entries']) {
      out.push(`${t}:${JSON.stringify(await db(t).where({ org_id: org }).count('* as n').first())}`);
    }
    return out.join(',');
  }

  let camtStatuses: Record<string, string> = {};
  let lastClosing = '';

  /** The bank_reconciliation report's one account of the organization, as of today. */
  async function reconciliation(org: 1 | 2): Promise<Record<string, unknown>> {
    const report = (await ok(post(org, '/invoicing/reports', { report: 'bank_reconciliation' }))).body;
    expect(report.accounts).toHaveLength(1);
    return report.accounts[0];
  }

  it('imports a 200-line camt.053, reconciles the exact references, suggests the rest with reasons, and balances after reconciling by hand', async () => {
    const setup = await setUp(1, 1);
    const date = new Date().toISOString().slice(0, 10);
    const statement = statementOf(setup, date);
    const xml = camt053(statement);
    expect(await iso20022Failures('camt.053.001.08', xml)).toBe('');
    const imported = (await ok(bank(1, { action: 'import_statement', format: 'camt053', journal: IBAN, content_base64: b64(xml) }))).body;
    expect(imported).toMatchObject({ lines: 199, duplicate_lines: 1, reconciled: 55, suggested: 60, unmatched: 84 });

    // Exact references: paid; partial ones: half paid, still open.
    const paid = await db('invoices')
      .whereIn(
        'id',
        setup.invoices.slice(0, 55).map((v) => v.id),
      )
      .select('id', 'amount_paid', 'invoicetotal', 'invoicestatus')
      .orderBy('id');
    paid.slice(0, 50).forEach((p: { invoicestatus: string }) => expect(p.invoicestatus).toBe('paid'));
    paid.slice(50).forEach((p: { amount_paid: string; invoicetotal: string; invoicestatus: string }) => {
      expect(dec(p.amount_paid).toFixed(2)).toBe(dec(p.invoicetotal).div(2).toFixed(2));
      expect(p.invoicestatus).toBe('open');
    });

    // A wrong reference with the right amount: the invoice named in the text, for its amount; never reconciled by itself.
    const lines = (await ok(bank(1, { action: 'lines', status: 'suggested', page_size: 100 }))).body.lines as {
      id: number;
      bank_reference: string;
      amount: number;
    }[];
    expect(lines).toHaveLength(60);
    for (const l of lines) {
      const s = (await ok(bank(1, { action: 'suggest', line_id: l.id }))).body;
      const best = s.candidates[0];
      if (l.bank_reference.startsWith('WR-')) {
        const invoice = setup.invoices[55 + Number(l.bank_reference.slice(3))]!;
        expect(best).toMatchObject({ invoice_id: invoice.id, reasons: ['amount', 'invoice_number'], score: 65 });
        await ok(bank(1, { action: 'reconcile', line_id: l.id, allocations: [{ invoice_id: invoice.id, amount: l.amount }] }));
      } else {
        expect(l.bank_reference).toMatch(/^FE-/);
        expect(best).toMatchObject({ account: FEES, reasons: ['rule'] });
        await ok(bank(1, { action: 'reconcile', line_id: l.id, account: FEES }));
      }
    }
    const unknown = (await ok(bank(1, { action: 'lines', status: 'unmatched', page_size: 100 }))).body.lines as { id: number }[];
    expect(unknown).toHaveLength(84);
    for (const l of unknown) {
      expect((await ok(bank(1, { action: 'suggest', line_id: l.id }))).body.candidates).toEqual([]);
      await ok(bank(1, { action: 'reconcile', line_id: l.id, account: SUSPENSE }));
    }
    // A line is reconciled once: a second reconcile is refused.
    const again = await bank(1, { action: 'reconcile', line_id: unknown[0]!.id, account: SUSPENSE });
    expect(again.statusCode).toBe(400);
    expect(again.body.code).toBe('invalid_state');

    expect(
      dec(await bankBalance(1))
        .plus(statement.opening)
        .toFixed(2),
    ).toBe(statement.closing);
    // The report says the same: nothing between the statement and the books.
    expect(await reconciliation(1)).toMatchObject({
      iban: IBAN,
      statement_balance: Number(statement.closing),
      opening_balance: Number(statement.opening),
      difference: 0,
      open_lines: [],
      open_total: 0,
      unexplained: 0,
    });

    // The same statement again: 409, nothing changes.
    const before = await tableCounts(1);
    const twice = await bank(1, { action: 'import_statement', format: 'camt053', journal: IBAN, content_base64: b64(xml) });
    expect(twice.statusCode).toBe(409);
    expect(twice.body.code).toBe('duplicate_statement');
    expect(await tableCounts(1)).toBe(before);

    // A statement that does not open where the last one closed is refused naming the gap.
    const gap = camt053({ ...statement, id: 'NEXT', sequence: 2, opening: '5.00', closing: '5.00', lines: [] });
    const refused = await bank(1, { action: 'import_statement', format: 'camt053', journal: IBAN, content_base64: b64(gap) });
    expect(refused.statusCode).toBe(400);
    expect(refused.body.message).toContain(`closed at ${statement.closing}`);
    expect(await tableCounts(1)).toBe(before);

    // Unreconciling a paid line voids its payment: the invoice owes again.
    const exact = (await db('bank_lines').where({ org_id: 1, bank_reference: 'EX-0' }).first()) as { id: number };
    await ok(bank(1, { action: 'unreconcile', line_id: exact.id }));
    expect((await db('invoices').where({ id: setup.invoices[0]!.id }).first()).invoicestatus).not.toBe('paid');
    expect(
      dec(await bankBalance(1))
        .plus(statement.opening)
        .toFixed(2),
    ).toBe(dec(statement.closing).minus(setup.invoices[0]!.total).toFixed(2));
    // The report names the line that explains the difference.
    expect(await reconciliation(1)).toMatchObject({
      difference: Number(setup.invoices[0]!.total),
      open_lines: [{ id: exact.id, amount: Number(setup.invoices[0]!.total), status: 'unmatched' }],
      open_total: Number(setup.invoices[0]!.total),
      unexplained: 0,
    });
    lastClosing = statement.closing;

    camtStatuses = Object.fromEntries(Object.entries(statementStatusesAfterImport(statement)));
  }, 600_000);

  /** What the import alone decides, by bank reference. */
  function statementStatusesAfterImport(statement: TestStatement): Record<string, string> {
    const out: Record<string, string> = {};
    for (const l of statement.lines.slice(0, -1)) {
      const kind = l.bank_reference.slice(0, 2);
      out[l.bank_reference] = kind === 'EX' || kind === 'PA' ? 'reconciled' : kind === 'UN' ? 'unmatched' : 'suggested';
    }
    return out;
  }

  it('imports the same lines as MT940, then as CSV, with the same result', async () => {
    const date = new Date().toISOString().slice(0, 10);
    let opening = '1000.00';
    for (const [format, tag] of [
      ['mt940', 2],
      ['csv', 3],
    ] as const) {
      const setup = await setUp(2, tag);
      const prefix = `${format}-`;
      const statement = statementOf(setup, date, prefix, opening);
      const content = format === 'mt940' ? mt940(statement) : csv(statement);
      const imported = (
        await ok(
          bank(2, {
            action: 'import_statement',
            format,
            journal: IBAN,
            content_base64: b64(content),
            ...(format === 'csv' ? { mapping: csvMapping, statement_id: statement.id } : {}),
          }),
        )
      ).body;
      expect(imported).toMatchObject({ lines: 199, duplicate_lines: 1, reconciled: 55, suggested: 60, unmatched: 84 });
      expect(imported.statement.closing_balance).toBe(Number(statement.closing));
      const statuses = await lineStatuses(2);
      const own = Object.fromEntries(
        Object.entries(statuses)
          .filter(([k]) => k.startsWith(prefix))
          .map(([k, v]) => [k.slice(prefix.length), v]),
      );
      expect(own).toEqual(camtStatuses);
      const paid = await db('invoices')
        .whereIn(
          'id',
          setup.invoices.map((v) => v.id),
        )
        .where({ invoicestatus: 'paid' })
        .count('* as n')
        .first();
      expect(Number(paid!.n)).toBe(50);
      opening = statement.closing;
    }
  }, 600_000);
  it('with bank_autoreconcile off, exact references are only suggested; the report counts them open', async () => {
    expect((await ok(bank(1, { action: 'settings' }))).body.settings).toEqual({ bank_autoreconcile: true });
    expect((await ok(bank(1, { action: 'settings', bank_autoreconcile: false }))).body.settings).toEqual({ bank_autoreconcile: false });
    const customer = (
      await ok(post(1, '/crm/editpatner', { action: 'create', partnername: 'Careful Payer', partner_type: 'customer', currency: 'EUR' }))
    ).body.partner.id as number;
    const invoices: Array<{ id: number; number: string }> = [];
    for (const price of ['40.00', '60.50']) {
      const inv = (
        await ok(
          post(1, '/invoicing/invoice/new', {
            invoicetype: 'invoiceout',
            partner: customer,
            line_items: [{ product_id: products[1], quantity: 1, price, tax_rate: 0, tax_included: false }],
          }),
        )
      ).body.invoice;
      await ok(post(1, '/invoicing/invoice/new', { validate_invoice: true, id: inv.id }));
      invoices.push({ id: inv.id, number: inv.invoicenumber });
    }
    const date = new Date().toISOString().slice(0, 10);
    const lines = [
      { amount: '40.00', booking_date: date, bank_reference: 'OFF-0', structured_reference: creditorReference(invoices[0]!.number) },
      { amount: '60.50', booking_date: date, bank_reference: 'OFF-1', structured_reference: creditorReference(invoices[1]!.number) },
    ];
    const closing = dec(lastClosing).plus('100.50').toFixed(2);
    const xml = camt053({ id: 'STMT-OFF', sequence: 2, iban: IBAN, currency: 'EUR', opening: lastClosing, closing, date, lines });
    const imported = (await ok(bank(1, { action: 'import_statement', format: 'camt053', journal: IBAN, content_base64: b64(xml) }))).body;
    expect(imported).toMatchObject({ lines: 2, reconciled: 0, suggested: 2, unmatched: 0 });
    const statuses = await db('invoices')
      .whereIn(
        'id',
        invoices.map((i) => i.id),
      )
      .pluck('invoicestatus');
    expect(statuses).toEqual(['open', 'open']);

    const report = await reconciliation(1);
    expect(report).toMatchObject({ statement_balance: Number(closing), unexplained: 0 });
    const open = report.open_lines as Array<{ amount: number; status: string }>;
    expect(open.filter((l) => l.status === 'suggested').map((l) => l.amount)).toEqual([40, 60.5]);
    expect(report.open_total).toBe(Number(dec(report.difference as number).toFixed(2)));
    await ok(bank(1, { action: 'settings', bank_autoreconcile: true }));
  }, 120_000);

  it('suggests an invoice of the partner whose own bank account paid, by its IBAN, though the line names no number or reference', async () => {
    // A valid IBAN (mod 97), written with spaces as a person types it; the partner stores it normalized.
    const payerIban = 'GB82 WEST 1234 5698 7654 32';
    const customer = (
      await ok(
        post(1, '/crm/editpatner', {
          action: 'create',
          partnername: 'Pays From Its Own Account',
          partner_type: 'customer',
          currency: 'EUR',
          bank_accounts: [{ iban: payerIban, name: 'Pays From Its Own Account' }],
        }),
      )
    ).body.partner.id as number;
    const inv = (
      await ok(
        post(1, '/invoicing/invoice/new', {
          invoicetype: 'invoiceout',
          partner: customer,
          line_items: [{ product_id: products[1], quantity: 1, price: '77.70', tax_rate: 0, tax_included: false }],
        }),
      )
    ).body.invoice;
    await ok(post(1, '/invoicing/invoice/new', { validate_invoice: true, id: inv.id }));
    await sys.eventsSettled();

    const previous = await db('bank_statements').where({ org_id: 1, iban: IBAN }).orderBy('id', 'desc').first('closing_balance');
    const opening = dec(previous.closing_balance).toFixed(2);
    const date = new Date().toISOString().slice(0, 10);
    const lines = [{ amount: '77.70', booking_date: date, bank_reference: 'OWN-0', text: 'Thank you', iban: payerIban.replace(/\s/g, '') }];
    const closing = dec(opening).plus('77.70').toFixed(2);
    const xml = camt053({ id: 'STMT-OWN', sequence: 3, iban: IBAN, currency: 'EUR', opening, closing, date, lines });
    const imported = (await ok(bank(1, { action: 'import_statement', format: 'camt053', journal: IBAN, content_base64: b64(xml) }))).body;
    expect(imported).toMatchObject({ lines: 1, reconciled: 0, suggested: 1, unmatched: 0 });
    const [line] = (await ok(bank(1, { action: 'lines', status: 'suggested', page_size: 100 }))).body.lines.filter(
      (l: { bank_reference: string }) => l.bank_reference === 'OWN-0',
    );
    const { candidates } = (await ok(bank(1, { action: 'suggest', line_id: line.id }))).body;
    expect(candidates[0]).toMatchObject({
      invoice_id: inv.id,
      partner: customer,
      reasons: expect.arrayContaining(['partner_iban', 'amount']),
    });
  }, 120_000);
});
