import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dec } from '@bo/kernel';
import { createDb, type Knex } from '@bo/runtime';
import { camt053 } from '../support/bank-files';
import { newProducts } from '../support/catalog';
import { iso20022Failures } from '../support/iso20022';
import { ok } from '../support/invoicing';
import { startTestSystem, type TestSystem } from '../support/system';

/**
 * Paying vendors (docs/bank.md "Paying vendors"): open bills chosen → a pain.001.001.09 file valid
 * against the schema, to each vendor's IBAN from its bank_accounts; the bills are in payment until the
 * statement's debit line stating their transfer is reconciled, which pays each once.
 */
const IBAN = 'DE89370400440532013000';
const VENDOR_IBAN = 'DE02120300000000202051';

describe('vendor payment files, end to end', () => {
  let sys: TestSystem;
  let db: Knex;
  let product: number;
  let vendor: number;
  let bills: { id: number; total: string }[];

  const post = (path: string, body: Record<string, unknown>) => sys.post(path, { org_id: 1, userid: 'e2e', ...body });
  const bank = (body: Record<string, unknown>) => post('/invoicing/bank', body);
  const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
  const fileStatuses = async () => {
    const rows: { invoice_id: number; status: string }[] = await db('payment_file_bills')
      .where({ org_id: 1 })
      .select('invoice_id', 'status');
    return Object.fromEntries(rows.map((r) => [r.invoice_id, r.status]));
  };
  const invoiceStatus = async (id: number) => ((await db('invoices').where({ id }).first()) as { invoicestatus: string }).invoicestatus;
  /** `payment_state` as the API answers it: the get (`/invoicing/getinvoice`) and the list's record agree. */
  const paymentState = async (id: number) => {
    const got = (await ok(post('/invoicing/getinvoice', { id }))).body.invoices[0].payment_state as string;
    const listed = (await ok(post('/invoicing/listinvoices', { page_size: 100 }))).body.invoices as { id: number; payment_state: string }[];
    expect(listed.find((i) => i.id === id)?.payment_state).toBe(got);
    return got;
  };
  /** The ids the list answers under a `payment_state` filter. */
  const listedIn = async (state: string) =>
    ((await ok(post('/invoicing/listinvoices', { payment_state: state, page_size: 100 }))).body.invoices as { id: number }[])
      .map((i) => i.id)
      .sort((a, b) => a - b);

  beforeAll(async () => {
    sys = await startTestSystem({ services: ['partners', 'catalog', 'invoicing'] });
    db = createDb(sys.databaseUrl, 'invoicing', 2);
    [product] = (await newProducts(sys, ['Supplies'])) as [number];
    await ok(post('/organization/setprofile', { default_currency: 'EUR', iban: IBAN, legal_name: 'Bäckerei & Co' }));
    vendor = (
      await ok(
        post('/crm/editpatner', {
          action: 'create',
          partnername: 'Paper Supplies GmbH',
          partner_type: 'vendor',
          currency: 'EUR',
          bank_accounts: [{ iban: 'DE02 1203 0000 0000 2020 51', bic: 'BYLADEM1001', name: 'Paper Supplies GmbH' }],
        }),
      )
    ).body.partner.id;
    bills = [];
    for (const price of ['119.00', '48.50', '1000.00']) {
      const bill = (
        await ok(
          post('/invoicing/invoice/new', {
            invoicetype: 'invoicein',
            partner: vendor,
            invoicereference: `SUP-${price}`,
            line_items: [{ product_id: product, quantity: 1, price, tax_rate: 0, tax_included: false }],
          }),
        )
      ).body.invoice;
      await ok(post('/invoicing/invoice/new', { validate_invoice: true, id: bill.id }));
      bills.push({ id: bill.id, total: price });
    }
  }, 120_000);
  afterAll(async () => {
    await db?.destroy();
    await sys?.stop();
  });

  let transfers: { invoice_id: number; end_to_end_id: string; amount: number; status: string }[];

  it('writes a pain.001 valid against the schema for the bills chosen, which are then in payment; its key again answers the same file', async () => {
    const request = { org_id: 1, userid: 'e2e', action: 'payment_file', bills: [bills[0]!.id, bills[1]!.id], execution_date: '2026-12-01' };
    const reply = (await ok(sys.post('/invoicing/bank', request, { headers: { 'idempotency-key': 'pain-once' } }))).body;
    // A retry with the key (the bills are in payment by now) answers the file it made, and makes none.
    const replayed = await sys.post('/invoicing/bank', request, { headers: { 'idempotency-key': 'pain-once' } });
    expect([replayed.statusCode, replayed.body]).toEqual([200, reply]);
    expect(await db('payment_files').where({ org_id: 1 }).count('* as n').first()).toEqual({ n: 1 });
    expect(reply.payment_file).toMatchObject({
      transfers: 2,
      total: 167.5,
      currency: 'EUR',
      debtor_iban: IBAN,
      execution_date: '2026-12-01',
    });
    const xml = Buffer.from(reply.content_base64, 'base64').toString('utf8');
    expect(await iso20022Failures('pain.001.001.09', xml)).toBe('');
    // The same with the xmllint command line, against the schema file itself.
    const dir = mkdtempSync(join(tmpdir(), 'pain001-'));
    writeFileSync(join(dir, 'file.xml'), xml);
    execFileSync('xmllint', ['--noout', '--schema', join(__dirname, '..', 'iso20022', 'pain.001.001.09.xsd'), join(dir, 'file.xml')], {
      stdio: 'pipe',
    });
    expect(xml).toContain(`<IBAN>${VENDOR_IBAN}</IBAN>`);
    expect(xml).toContain('<Ustrd>SUP-119.00</Ustrd>');
    expect(xml).toContain('<CtrlSum>167.50</CtrlSum>');
    transfers = reply.bills;
    expect(transfers.map((b: { invoice_id: number; status: string }) => [b.invoice_id, b.status])).toEqual([
      [bills[0]!.id, 'in_payment'],
      [bills[1]!.id, 'in_payment'],
    ]);
    expect(await fileStatuses()).toEqual({ [bills[0]!.id]: 'in_payment', [bills[1]!.id]: 'in_payment' });
    // The invoice records say so beside their status, which stays `open`; the bill not in the file is not paid.
    expect(await paymentState(bills[0]!.id)).toBe('in_payment');
    expect(await paymentState(bills[1]!.id)).toBe('in_payment');
    expect(await paymentState(bills[2]!.id)).toBe('not_paid');
    expect(await invoiceStatus(bills[0]!.id)).toBe('open');
    expect(await listedIn('in_payment')).toEqual([bills[0]!.id, bills[1]!.id]);
    expect(await listedIn('not_paid')).toEqual([bills[2]!.id]);
  });

  it('refuses a payment_state filter it does not know, naming the field', async () => {
    const reply = await post('/invoicing/listinvoices', { payment_state: 'pending' });
    expect(reply.statusCode).toBe(400);
    expect(reply.body.errors.map((e: { field: string }) => e.field)).toEqual(['payment_state']);
  });

  it('refuses a bill already in a payment file, or no bill, naming the field and changing nothing', async () => {
    const again = await bank({ action: 'payment_file', bills: [bills[1]!.id, bills[2]!.id] });
    expect(again.statusCode).toBe(400);
    expect(again.body.errors.map((e: { field: string }) => e.field)).toEqual(['bills']);
    expect(again.body.message).toMatch(/already in payment file/);
    const neither = await bank({ action: 'payment_file' });
    expect(neither.statusCode).toBe(400);
    expect(neither.body.errors.map((e: { field: string }) => e.field)).toEqual(['bills']);
    expect(await db('payment_files').where({ org_id: 1 }).count('* as n').first()).toEqual({ n: 1 });
  });

  it('pays the bills once when the statement debits them: reconciled on import, undone and reconciled by hand again', async () => {
    const date = new Date().toISOString().slice(0, 10);
    const lines = transfers.map((t, i) => ({
      amount: `-${dec(t.amount).toFixed(2)}`,
      booking_date: date,
      bank_reference: `DEBIT-${i}`,
      end_to_end_id: t.end_to_end_id,
      name: 'Paper Supplies GmbH',
      iban: VENDOR_IBAN,
    }));
    const closing = lines.reduce((s, l) => s.plus(dec(l.amount)), dec('5000.00')).toFixed(2);
    const xml = camt053({ id: 'STMT-PAY-1', sequence: 1, iban: IBAN, currency: 'EUR', opening: '5000.00', closing, date, lines });
    expect(await iso20022Failures('camt.053.001.08', xml)).toBe('');
    const imported = (await ok(bank({ action: 'import_statement', format: 'camt053', journal: IBAN, content_base64: b64(xml) }))).body;
    expect(imported).toMatchObject({ lines: 2, reconciled: 2 });
    expect(await invoiceStatus(bills[0]!.id)).toBe('paid');
    expect(await invoiceStatus(bills[1]!.id)).toBe('paid');
    expect(await invoiceStatus(bills[2]!.id)).toBe('open');
    expect(await fileStatuses()).toEqual({ [bills[0]!.id]: 'paid', [bills[1]!.id]: 'paid' });
    expect(await paymentState(bills[0]!.id)).toBe('paid');
    expect(await paymentState(bills[1]!.id)).toBe('paid');
    expect(await listedIn('in_payment')).toEqual([]);
    expect(await listedIn('paid')).toEqual([bills[0]!.id, bills[1]!.id]);
    // The same statement again changes nothing.
    expect((await bank({ action: 'import_statement', format: 'camt053', journal: IBAN, content_base64: b64(xml) })).statusCode).toBe(409);

    // Undo the first: the bill is open and in payment again; reconciled by hand, it is paid once more, by one payment.
    const [first] = (await ok(bank({ action: 'lines', status: 'reconciled' }))).body.lines as { id: number; end_to_end_id: string }[];
    const bill = transfers.find((t) => t.end_to_end_id === first!.end_to_end_id)!;
    await ok(bank({ action: 'unreconcile', line_id: first!.id }));
    expect(await invoiceStatus(bill.invoice_id)).toBe('open');
    expect((await fileStatuses())[bill.invoice_id]).toBe('in_payment');
    expect(await paymentState(bill.invoice_id)).toBe('in_payment');
    expect(await listedIn('in_payment')).toEqual([bill.invoice_id]);
    await ok(bank({ action: 'reconcile', line_id: first!.id, allocations: [{ invoice_id: bill.invoice_id, amount: bill.amount }] }));
    expect(await invoiceStatus(bill.invoice_id)).toBe('paid');
    expect((await fileStatuses())[bill.invoice_id]).toBe('paid');
    expect(await paymentState(bill.invoice_id)).toBe('paid');
    const allocated = await db('payment_allocations as a')
      .join('payments as p', 'p.id', 'a.payment_id')
      .where({ 'a.invoice_id': bill.invoice_id, 'a.status': 'active', 'p.status': 'posted' })
      .select('a.amount');
    expect(allocated.map((a: { amount: string }) => dec(a.amount).toFixed(2))).toEqual([dec(bill.amount).toFixed(2)]);
  });
  it('takes a bill named twice once, and leaves a debit line of another amount to a person', async () => {
    const reply = (await ok(bank({ action: 'payment_file', bills: [bills[2]!.id, bills[2]!.id] }))).body;
    expect(reply.payment_file).toMatchObject({ transfers: 1, total: 1000 });
    const [transfer] = reply.bills as { end_to_end_id: string }[];
    const date = new Date().toISOString().slice(0, 10);
    const previous = (await ok(bank({ action: 'statements' }))).body.statements[0] as { closing_balance: number };
    const opening = dec(previous.closing_balance).toFixed(2);
    const line = {
      amount: '-999.00',
      booking_date: date,
      bank_reference: 'DEBIT-X',
      end_to_end_id: transfer!.end_to_end_id,
      iban: VENDOR_IBAN,
    };
    const xml = camt053({
      id: 'STMT-PAY-2',
      sequence: 2,
      iban: IBAN,
      currency: 'EUR',
      opening,
      closing: dec(opening).minus(999).toFixed(2),
      date,
      lines: [line],
    });
    const imported = (await ok(bank({ action: 'import_statement', format: 'camt053', journal: IBAN, content_base64: b64(xml) }))).body;
    expect(imported.reconciled).toBe(0);
    expect(await invoiceStatus(bills[2]!.id)).toBe('open');
    expect((await fileStatuses())[bills[2]!.id]).toBe('in_payment');
  });
});
