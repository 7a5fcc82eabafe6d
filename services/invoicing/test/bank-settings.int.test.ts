import * as testing from '@bo/testkit';
import { camt053, creditorReference } from '../../../tests/support/bank-files';
import { body, startWithFakePartners, type FakePartner } from './fixtures';

// The organization's `bank_autoreconcile` (docs/bank.md "Import") over real PostgreSQL and RabbitMQ:
// on by default, a line quoting an open invoice's RF reference for at most its due amount is
// reconciled on import; switched off, the same kind of line is only suggested and nothing is paid.
const IBAN = 'DE89370400440532013000';
const partnersTable: FakePartner[] = [{ org: 1, id: 10, partnername: 'Acme', credit_limit: 0, balance: 0, record: { currency: 'EUR' } }];

describe('invoicing service: bank_autoreconcile', () => {
  let svc: testing.TestService;
  let state: Awaited<ReturnType<typeof startWithFakePartners>>['state'];
  const call = (operation: string, payload: Record<string, unknown>) => svc.call(operation, { userid: '5', ...payload }, 1);

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
  async function importPaying(invoice: { number: string }, amount: string, seq: number, opening: string) {
    const closing = (Number(opening) + Number(amount)).toFixed(2);
    const content = camt053({
      id: `STMT-${seq}`,
      sequence: seq,
      iban: IBAN,
      currency: 'EUR',
      opening,
      closing,
      date: '2026-03-02',
      lines: [
        { amount, booking_date: '2026-03-02', bank_reference: `REF-${seq}`, structured_reference: creditorReference(invoice.number) },
      ],
    });
    return body(
      await call('invoicing.bank.import_statement', {
        action: 'import_statement',
        format: 'camt053',
        journal: IBAN,
        content_base64: Buffer.from(content).toString('base64'),
      }),
    );
  }
  const invoiceOf = async (id: number) =>
    (await svc.db('invoices').where({ org_id: 1, id }).first()) as { amount_paid: string; invoicestatus: string };

  beforeAll(async () => {
    ({ svc, state } = await startWithFakePartners(partnersTable));
    state.profiles.set(1, testing.profileRecord(1, { iban: IBAN, default_currency: 'EUR' }));
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('is on until set: an exact reference for part of what is due is reconciled on import', async () => {
    expect(body(await call('invoicing.bank.settings', { action: 'settings' })).settings).toEqual({ bank_autoreconcile: true });
    const invoice = await issued(100);
    const reply = await importPaying(invoice, '40.00', 1, '0.00');
    expect(reply).toMatchObject({ lines: 1, reconciled: 1, suggested: 0, unmatched: 0 });
    expect(Number((await invoiceOf(invoice.id)).amount_paid)).toBe(40);
  });

  it('switched off, the same kind of line is suggested and the invoice stays unpaid; on again, it reconciles again', async () => {
    expect(body(await call('invoicing.bank.settings', { action: 'settings', bank_autoreconcile: false })).settings).toEqual({
      bank_autoreconcile: false,
    });
    // A setting not given is left as it is.
    expect(body(await call('invoicing.bank.settings', { action: 'settings' })).settings).toEqual({ bank_autoreconcile: false });
    const invoice = await issued(100);
    const off = await importPaying(invoice, '100.00', 2, '40.00');
    expect(off).toMatchObject({ lines: 1, reconciled: 0, suggested: 1 });
    expect(Number((await invoiceOf(invoice.id)).amount_paid)).toBe(0);
    const lines = body(await call('invoicing.bank.lines', { action: 'lines', statement: off.statement.id })).lines;
    expect(lines.map((l: { status: string; payment_id: number | null }) => [l.status, l.payment_id])).toEqual([['suggested', null]]);

    body(await call('invoicing.bank.settings', { action: 'settings', bank_autoreconcile: true }));
    const other = await issued(50);
    expect(await importPaying(other, '50.00', 3, '140.00')).toMatchObject({ reconciled: 1 });
    expect((await invoiceOf(other.id)).invoicestatus).toBe('paid');
  });

  it('refuses a setting that is not a boolean, naming it, and changes nothing', async () => {
    const before = await testing.schemaSnapshot(svc.db, svc.schema);
    const reply = (await call('invoicing.bank.settings', { action: 'settings', bank_autoreconcile: 'sometimes' })) as {
      ok: boolean;
      status: number;
      errors?: Array<{ field: string }>;
    };
    expect(reply).toMatchObject({ ok: false, status: 400 });
    expect(reply.errors?.map((e) => e.field)).toContain('bank_autoreconcile');
    expect(await testing.schemaSnapshot(svc.db, svc.schema)).toEqual(before);
  });
});
