import * as testing from '@bo/testkit';
import { camt053, creditorReference } from '../../../tests/support/bank-files';
import { body, startWithFakePartners, type FakePartner } from './fixtures';

// The `bank_reconciliation` report (docs/bank.md) over real PostgreSQL and RabbitMQ: a statement of
// three lines, one reconciled on import, one open, one set aside; the report names the open line and
// the difference the open and ignored lines explain; reconciled by hand, the difference closes; as of
// a day before the statement, there is nothing to reconcile.
const IBAN = 'DE89370400440532013000';
const partnersTable: FakePartner[] = [{ org: 1, id: 10, partnername: 'Acme', credit_limit: 0, balance: 0, record: { currency: 'EUR' } }];

describe('invoicing service: bank_reconciliation report', () => {
  let svc: testing.TestService;
  const call = (operation: string, payload: Record<string, unknown>) => svc.call(operation, { userid: '5', ...payload }, 1);
  const report = async (as_of: string) => body(await call('invoicing.report.run', { report: 'bank_reconciliation', as_of }));

  async function issued(price: number): Promise<{ id: number; number: string }> {
    const inv = body(
      await call('invoicing.invoice.create', {
        invoicetype: 'invoiceout',
        partner: 10,
        invoicedatetime: '2026-01-01T09:00:00',
        line_items: [{ product_id: 7, quantity: 1, price, tax_rate: 0, tax_included: false }],
      }),
    ).invoice;
    body(await call('invoicing.invoice.validate', { validate_invoice: true, id: inv.id }));
    return { id: inv.id as number, number: inv.invoicenumber as string };
  }

  let first: { id: number; number: string };
  let second: { id: number; number: string };
  let lines: Array<{ id: number; bank_reference: string; status: string }>;

  beforeAll(async () => {
    let state;
    ({ svc, state } = await startWithFakePartners(partnersTable));
    state.profiles.set(1, testing.profileRecord(1, { iban: IBAN, default_currency: 'EUR' }));
    first = await issued(120.1);
    second = await issued(45.55);
    const content = camt053({
      id: 'STMT-1',
      sequence: 1,
      iban: IBAN,
      currency: 'EUR',
      opening: '500.00',
      closing: '663.15', // 500.00 + 120.10 + 45.55 − 2.50
      date: '2026-03-02',
      lines: [
        { amount: '120.10', booking_date: '2026-03-02', bank_reference: 'R-1', structured_reference: creditorReference(first.number) },
        { amount: '45.55', booking_date: '2026-03-02', bank_reference: 'R-2', text: 'no reference at all' },
        { amount: '-2.50', booking_date: '2026-03-02', bank_reference: 'R-3', text: 'own transfer' },
      ],
    });
    body(
      await call('invoicing.bank.import_statement', {
        action: 'import_statement',
        format: 'camt053',
        journal: IBAN,
        content_base64: Buffer.from(content).toString('base64'),
      }),
    );
    lines = body(await call('invoicing.bank.lines', { action: 'lines' })).lines;
    const own = lines.find((l) => l.bank_reference === 'R-3')!;
    body(await call('invoicing.bank.ignore', { action: 'ignore', line_id: own.id }));
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('as of the statement: the closing balance against the journal account, the open line, and what explains the difference', async () => {
    const reply = await report('2026-03-02');
    const open = lines.find((l) => l.bank_reference === 'R-2')!;
    expect(reply.accounts).toHaveLength(1);
    expect(reply.accounts[0]).toMatchObject({
      journal: 'Bank',
      iban: IBAN,
      currency: 'EUR',
      statement: { statement_id: 'STMT-1', statement_date: '2026-03-02' },
      opening_balance: 500,
      statement_balance: 663.15,
      book_balance: 120.1,
      difference: 43.05,
      open_total: 45.55,
      ignored_total: -2.5,
      unexplained: 0,
    });
    expect(reply.accounts[0].open_lines.map((l: { id: number; amount: number }) => [l.id, l.amount])).toEqual([[open.id, 45.55]]);
  });

  it('once the open line is reconciled by hand, only the line set aside is left of the difference', async () => {
    const open = lines.find((l) => l.bank_reference === 'R-2')!;
    body(
      await call('invoicing.bank.reconcile', {
        action: 'reconcile',
        line_id: open.id,
        allocations: [{ invoice_id: second.id, amount: '45.55' }],
      }),
    );
    expect((await report('2026-03-02')).accounts[0]).toMatchObject({
      book_balance: 165.65,
      difference: -2.5,
      open_lines: [],
      open_total: 0,
      unexplained: 0,
    });
  });

  it('as of a day before any statement, there is no account to reconcile', async () => {
    expect(await report('2026-03-01')).toMatchObject({ report: 'bank_reconciliation', as_of: '2026-03-01', accounts: [] });
  });

  it('refuses an as_of that is not a date, naming it', async () => {
    const reply = (await call('invoicing.report.run', { report: 'bank_reconciliation', as_of: '2026-02-30' })) as {
      status: number;
      errors?: Array<{ field: string }>;
    };
    expect(reply.status).toBe(400);
    expect(reply.errors?.map((e) => e.field)).toContain('as_of');
  });
});
