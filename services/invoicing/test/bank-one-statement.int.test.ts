import { NotAsDecided, storeAlone, type OneStatementWrite } from '@bo/runtime';
import * as testing from '@bo/testkit';
import { camt053 } from '../../../tests/support/bank-files';
import { bankRuleAlone, lineStatusAlone, listRules, readLine } from '../src/bank/bank.repository';
import { decideBankRule } from '../src/bank/decide-bank-rule';
import { decideIgnore, decideUnreconcile } from '../src/bank/decide-line-status';
import { decidePaymentFile, type PaymentFileFacts } from '../src/bank/decide-payment-file';
import { paymentFileAlone, readPaymentFile } from '../src/bank/payment-files';
import { body, startWithFakePartners, type FakePartner } from './fixtures';

// The bank writes stored as one statement (load → decide → store): a store decided on an unlocked
// read writes nothing once what it read moved, and what the service answers is what it stored.
const IBAN = 'DE89370400440532013000';
const partnersTable: FakePartner[] = [
  { org: 1, id: 10, partnername: 'Acme', credit_limit: 0, balance: 0, record: { currency: 'EUR' } },
  {
    org: 1,
    id: 11,
    partnername: 'Supplies Ltd',
    credit_limit: 0,
    balance: 0,
    record: { currency: 'EUR', bank_accounts: [{ iban: 'FR1420041010050500013M02606', bic: null, name: 'Supplies Ltd' }] },
  },
];
const NOTHING = { ok: true, status: 200, body: {} } as const;

describe('invoicing service: bank writes as one statement', () => {
  let svc: testing.TestService;
  let state: Awaited<ReturnType<typeof startWithFakePartners>>['state'];
  const call = (operation: string, payload: Record<string, unknown>) => svc.call(operation, { userid: '5', ...payload }, 1);
  const bank = (action: string, payload: Record<string, unknown> = {}) => call(`invoicing.bank.${action}`, { action, ...payload });
  const store = (write: Omit<OneStatementWrite, 'events' | 'reply'>) =>
    storeAlone(svc.db, { ...write, events: [], reply: {} }, undefined, NOTHING);
  const lineOf = async (id: number) => (await svc.db('bank_lines').where({ org_id: 1, id }).first()) as { status: string };
  let lines: number[] = [];

  beforeAll(async () => {
    ({ svc, state } = await startWithFakePartners(partnersTable));
    state.profiles.set(1, testing.profileRecord(1, { iban: IBAN, default_currency: 'EUR' }));
    const statement = camt053({
      id: 'STMT-1',
      sequence: 1,
      iban: IBAN,
      currency: 'EUR',
      opening: '0.00',
      closing: '-6.00',
      date: '2026-03-02',
      lines: Array.from({ length: 6 }, (_, i) => ({
        amount: '-1.00',
        booking_date: '2026-03-02',
        bank_reference: `R-${i}`,
        remittance_text: `n${i}`,
      })),
    });
    const imported = body(
      await bank('import_statement', { format: 'camt053', journal: IBAN, content_base64: Buffer.from(statement).toString('base64') }),
    );
    lines = (body(await bank('lines', { statement: imported.statement.id })).lines as Array<{ id: number }>).map((l) => l.id);
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('answers the bank settings as stored', async () => {
    const stored = async () =>
      ((await svc.db('bank_settings').where({ org_id: 1 }).first()) as { autoreconcile: boolean } | undefined)?.autoreconcile;
    expect(body(await bank('settings')).settings).toEqual({ bank_autoreconcile: true });
    expect(await stored()).toBeUndefined();
    expect(body(await bank('settings', { bank_autoreconcile: false })).settings).toEqual({ bank_autoreconcile: await stored() });
    expect(await stored()).toBe(false);
    expect(body(await bank('settings')).settings).toEqual({ bank_autoreconcile: false });
    expect(body(await bank('settings', { bank_autoreconcile: true })).settings).toEqual({ bank_autoreconcile: await stored() });
  });

  it('answers the rules as stored, and stores a delete decided on a read only while the rule is still there', async () => {
    const created = body(await bank('rules', { rule_action: 'create', match_text: 'fee', account: '6800 Bank Charges' }));
    expect(created.rules).toEqual(await listRules(svc.db, 1));
    const again = body(
      await bank('rules', { rule_action: 'create', name: 'Acme', match_iban: 'DE02 1203 0000 0000 2020 51', partner: 10 }),
    );
    expect(again.rules).toEqual(await listRules(svc.db, 1));
    expect(again.rules).toHaveLength(2);
    expect(body(await bank('rules')).rules).toEqual(again.rules);
    const [first, second] = again.rules as Array<{ id: number }>;

    // Decided to delete the first rule; meanwhile it is deleted: the stale delete writes nothing.
    const stale = bankRuleAlone(1, decideBankRule({ rule_action: 'delete', rule_id: first!.id }));
    expect(body(await bank('rules', { rule_action: 'delete', rule_id: first!.id })).rules).toEqual(await listRules(svc.db, 1));
    await expect(store(stale)).rejects.toBeInstanceOf(NotAsDecided);
    expect((await listRules(svc.db, 1)).map((r) => r.id)).toEqual([second!.id]);

    // A rule that is not there is refused, and nothing changes.
    const before = await testing.schemaSnapshot(svc.db, svc.schema);
    expect(await bank('rules', { rule_action: 'delete', rule_id: first!.id })).toMatchObject({
      ok: false,
      status: 400,
      code: 'not_found',
      message: `Rule ${first!.id} not found`,
    });
    expect(await testing.schemaSnapshot(svc.db, svc.schema)).toEqual(before);
  });

  it('stores an ignore decided on an unlocked read only while the line is as read', async () => {
    const line = lines[0]!;
    const decided = async () => {
      const read = (await readLine(svc.db, 1, line))!;
      const plan = decideIgnore(read.load, line);
      return lineStatusAlone(plan.line.id, plan.line.status, read.read);
    };
    // Read open and decided to set it aside; meanwhile it is reconciled: the stale store writes nothing.
    const stale = await decided();
    body(await bank('reconcile', { line_id: line, account: '6800 Bank Charges' }));
    await expect(store(stale)).rejects.toBeInstanceOf(NotAsDecided);
    expect((await lineOf(line)).status).toBe('reconciled');

    // Through the service, the refusal is the usual one, and nothing changes.
    const before = await testing.schemaSnapshot(svc.db, svc.schema);
    expect(await bank('ignore', { line_id: line })).toMatchObject({
      ok: false,
      status: 400,
      code: 'invalid_state',
      message: `Bank line ${line} is reconciled; unreconcile it first`,
    });
    expect(await testing.schemaSnapshot(svc.db, svc.schema)).toEqual(before);

    // Opened again and read with nothing in between: set aside.
    body(await bank('unreconcile', { line_id: line }));
    await store(await decided());
    expect((await lineOf(line)).status).toBe('ignored');
  });

  it('answers an ignored line as stored, and a line it does not have as not found', async () => {
    const line = lines[1]!;
    const reply = body(await bank('ignore', { line_id: line }));
    const listed = (body(await bank('lines', { status: 'ignored' })).lines as Array<{ id: number }>).find((l) => l.id === line);
    expect(reply).toEqual({ message: `Bank line ${line} ignored`, line: listed });
    expect(await bank('ignore', { line_id: 999999 })).toMatchObject({ ok: false, status: 400, message: 'Bank line 999999 not found' });
  });

  it('stores an ignored line opened again, decided on an unlocked read, only while it is as read', async () => {
    const line = lines[2]!;
    body(await bank('ignore', { line_id: line }));
    const decided = async () => {
      const read = (await readLine(svc.db, 1, line))!;
      const plan = decideUnreconcile(read.load, line);
      expect(plan.kind).toBe('reopen');
      return lineStatusAlone(plan.line.id, plan.line.status, read.read);
    };
    // Read ignored; meanwhile it is opened and reconciled: the stale reopening writes nothing.
    const stale = await decided();
    body(await bank('unreconcile', { line_id: line }));
    body(await bank('reconcile', { line_id: line, account: '6800 Bank Charges' }));
    await expect(store(stale)).rejects.toBeInstanceOf(NotAsDecided);
    expect((await lineOf(line)).status).toBe('reconciled');

    // Undone through the service (the reconciliation's posting reversed), then ignored and opened again.
    const undone = body(await bank('unreconcile', { line_id: line }));
    const listed = (body(await bank('lines', { status: 'unmatched' })).lines as Array<{ id: number }>).find((l) => l.id === line);
    expect(undone).toEqual({ message: `Bank line ${line} is open again`, line: listed });
    body(await bank('ignore', { line_id: line }));
    await store(await decided());
    expect((await lineOf(line)).status).toBe('unmatched');

    // An open line is not reconciled: refused, nothing changes.
    const before = await testing.schemaSnapshot(svc.db, svc.schema);
    expect(await bank('unreconcile', { line_id: line })).toMatchObject({
      ok: false,
      status: 400,
      code: 'invalid_state',
      message: `Bank line ${line} is not reconciled`,
    });
    expect(await testing.schemaSnapshot(svc.db, svc.schema)).toEqual(before);
  });

  it('stores a payment file decided on an unlocked read only while its bills are as read, and answers it as stored', async () => {
    const bill = async (price: number) => {
      const inv = body(
        await call('invoicing.invoice.create', {
          invoicetype: 'invoicein',
          partner: 11,
          invoicedatetime: '2026-02-01T09:00:00',
          line_items: [{ product_id: 7, quantity: 1, price, tax_rate: 0, tax_included: false }],
        }),
      ).invoice;
      body(await call('invoicing.invoice.validate', { validate_invoice: true, id: inv.id }));
      return inv.id as number;
    };
    const [a, b] = [await bill(100), await bill(30)];
    const facts = (ids: number[]): PaymentFileFacts => ({
      ids,
      vendors: [[11, { name: 'Supplies Ltd', iban: 'FR1420041010050500013M02606', bic: null }]],
      debtor: { name: 'Org', iban: IBAN, bic: null },
      executionDate: '2026-03-10',
    });
    const decided = async (ids: number[]) => {
      const { load, read } = await readPaymentFile(svc.db, 1, ids);
      const plan = decidePaymentFile({ bills: ids }, facts(ids), load, 1);
      if (plan.kind !== 'file') throw new Error('no file');
      return { plan, write: paymentFileAlone(plan, read) };
    };
    const filesOf = async (id: number) => svc.db('payment_file_bills').where({ org_id: 1, invoice_id: id });

    // Read open and decided to pay both; meanwhile the first is paid in part: the stale file writes nothing.
    const stale = await decided([a, b]);
    body(await call('invoicing.invoice.register_payment', { register_payment: true, id: a, amount: 40, payment_date: '2026-03-02' }));
    await expect(store(stale.write)).rejects.toBeInstanceOf(NotAsDecided);
    expect(await svc.db('payment_files').where({ id: stale.plan.file.id })).toEqual([]);
    expect([...(await filesOf(a)), ...(await filesOf(b))]).toEqual([]);

    // Read and decided; meanwhile the second goes in another file: the stale file writes nothing either.
    const beaten = await decided([a, b]);
    body(await bank('payment_file', { bills: [b], execution_date: '2026-03-10' }));
    await expect(store(beaten.write)).rejects.toBeInstanceOf(NotAsDecided);
    expect(await svc.db('payment_files').where({ id: beaten.plan.file.id })).toEqual([]);
    expect(await filesOf(a)).toEqual([]);

    // Through the service: the bill in a file is refused as before, and nothing changes.
    const before = await testing.schemaSnapshot(svc.db, svc.schema);
    const refused = await bank('payment_file', { bills: [a, b] });
    expect(refused).toMatchObject({ ok: false, status: 400, code: 'validation_failed' });
    expect((refused as { message: string }).message).toMatch(/is already in payment file \d+$/);
    expect(await testing.schemaSnapshot(svc.db, svc.schema)).toEqual(before);

    // The rest of the first paid by a file: what the service answers is what it stored.
    const reply = body(await bank('payment_file', { bills: [a], execution_date: '2026-03-10' }));
    const file = (await svc.db('payment_files').where({ id: reply.payment_file.id }).first()) as Record<string, unknown>;
    expect(reply.payment_file).toMatchObject({ message_id: file['message_id'], transfers: 1, total: 60, debtor_iban: file['debtor_iban'] });
    expect(Buffer.from(reply.content_base64, 'base64').toString('utf8')).toBe(file['content']);
    expect(reply.bills).toEqual(
      (await filesOf(a)).map((r: Record<string, unknown>) => ({
        invoice_id: a,
        invoicenumber: expect.any(String),
        partner: 11,
        amount: Number(r['amount']),
        creditor_iban: r['creditor_iban'],
        end_to_end_id: r['end_to_end_id'],
        status: 'in_payment',
      })),
    );
  });
});
