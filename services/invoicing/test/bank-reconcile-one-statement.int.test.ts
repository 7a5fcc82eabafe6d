import { NotAsDecided, storeAlone } from '@bo/runtime';
import * as testing from '@bo/testkit';
import { camt053 } from '../../../tests/support/bank-files';
import { rateWindow } from '../src/invoice/decide-registration';
import { readNewPayment } from '../src/payment/new-payment.repository';
import { decideReconcile, lineDate, postsEntry, reconcileWayOf, type ReconcileAsked } from '../src/bank/decide-reconcile';
import { reconcileLine } from '../src/bank/reconcile';
import { readReconcile, reconcileAlone } from '../src/bank/reconcile.repository';
import { body, startWithFakePartners, type FakePartner } from './fixtures';

// invoicing.bank.reconcile stored as one statement (load → decide → store): a store decided on an
// unlocked read writes nothing once the line, a document or the payment it read moved; what the
// service answers, and the event it sends, is what it stored; and of two reconciles of one line at
// once, one stands.
const IBAN = 'DE89370400440532013000';
const partnersTable: FakePartner[] = [{ org: 1, id: 10, partnername: 'Acme', credit_limit: 0, balance: 0, record: { currency: 'EUR' } }];
const NOTHING = { ok: true, status: 200, body: {} } as const;
const AMOUNTS = ['30.00', '40.00', '50.00', '60.00', '25.00', '-20.00', '70.00', '15.00', '35.00', '45.00'];

describe('invoicing service: a bank line reconciled as one statement', () => {
  let svc: testing.TestService;
  let lines: number[] = [];
  const call = (operation: string, payload: Record<string, unknown>) => svc.call(operation, { userid: '5', ...payload }, 1);
  const bank = (action: string, payload: Record<string, unknown> = {}) => call(`invoicing.bank.${action}`, { action, ...payload });
  const lineOf = async (id: number) => (await svc.db('bank_lines').where({ org_id: 1, id }).first()) as { status: string };
  const listed = async (id: number) =>
    (body(await bank('lines', { status: 'reconciled', page_size: 100 })).lines as Array<{ id: number }>).find((l) => l.id === id);
  const activeOf = async (line: number) => svc.db('bank_reconciliations').where({ line_id: line, status: 'active' });

  async function issued(price: number): Promise<number> {
    const inv = body(
      await call('invoicing.invoice.create', {
        invoicetype: 'invoiceout',
        partner: 10,
        invoicedatetime: '2026-02-01T09:00:00',
        line_items: [{ product_id: 7, quantity: 1, price, tax_rate: 0, tax_included: false }],
      }),
    ).invoice;
    body(await call('invoicing.invoice.validate', { validate_invoice: true, id: inv.id }));
    return inv.id as number;
  }
  const paid = async (amount: number) =>
    body(
      await call('invoicing.payment.create', {
        action: 'create',
        partner: 10,
        currency: 'EUR',
        direction: 'in',
        payment_date: '2026-03-02',
        amount,
      }),
    ).payment.id as number;

  /** A reconcile read with no lock and decided as `alone` decides it, and its store. */
  async function decided(req: ReconcileAsked) {
    const way = reconcileWayOf(req);
    const instant = new Date();
    const { load, read } = await readReconcile(svc.db, 1, req, postsEntry(way, req));
    const line = load.line!;
    const made =
      way === 'allocations' || way === 'credit'
        ? await readNewPayment(svc.db, 1, { currency: line.currency, allocations: req.allocations }, rateWindow(lineDate(line), instant))
        : undefined;
    const plan = decideReconcile(req, { ...load, newPayment: made?.state }, { orgId: 1, userId: '5', instant });
    const write = reconcileAlone(plan, read!, made?.read);
    return { plan, store: () => storeAlone(svc.db, { ...write, events: [], reply: {} }, undefined, NOTHING) };
  }
  /** Nothing of a plan stayed: no reconciliation, entry or payment under the ids it drew. */
  async function nothingOf(plan: Awaited<ReturnType<typeof decided>>['plan']) {
    expect(await svc.db('bank_reconciliations').where({ id: plan.reconciliation.id })).toEqual([]);
    if (plan.entry) expect(await svc.db('journal_entries').where({ id: plan.entry.id })).toEqual([]);
    if (plan.payment) expect(await svc.db('payments').where({ id: plan.payment.ids.paymentId })).toEqual([]);
  }

  beforeAll(async () => {
    let state;
    ({ svc, state } = await startWithFakePartners(partnersTable));
    state.profiles.set(1, testing.profileRecord(1, { iban: IBAN, default_currency: 'EUR' }));
    body(await bank('settings', { bank_autoreconcile: false }));
    const statement = camt053({
      id: 'STMT-R',
      sequence: 1,
      iban: IBAN,
      currency: 'EUR',
      opening: '0.00',
      closing: AMOUNTS.reduce((s, a) => s + Number(a), 0).toFixed(2),
      date: '2026-03-02',
      lines: AMOUNTS.map((amount, i) => ({ amount, booking_date: '2026-03-02', bank_reference: `RR-${i}`, text: `n${i}` })),
    });
    const imported = body(
      await bank('import_statement', { format: 'camt053', journal: IBAN, content_base64: Buffer.from(statement).toString('base64') }),
    );
    lines = (body(await bank('lines', { statement: imported.statement.id })).lines as Array<{ id: number }>).map((l) => l.id);
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('stores a posting to an account only while the line is as read, and answers it as stored', async () => {
    const line = lines[0]!;
    // Read open and decided to post it; meanwhile it is set aside: the stale store writes nothing.
    const stale = await decided({ line_id: line, account: '8000 Interest' });
    body(await bank('ignore', { line_id: line }));
    await expect(stale.store()).rejects.toBeInstanceOf(NotAsDecided);
    expect((await lineOf(line)).status).toBe('ignored');
    await nothingOf(stale.plan);

    // Through the service the refusal is the usual one, and nothing changes.
    const before = await testing.schemaSnapshot(svc.db, svc.schema);
    expect(await bank('reconcile', { line_id: line, account: '8000 Interest' })).toMatchObject({
      ok: false,
      status: 400,
      code: 'invalid_state',
      message: `Bank line ${line} is ignored; unreconcile it first`,
    });
    expect(await testing.schemaSnapshot(svc.db, svc.schema)).toEqual(before);

    // Opened again and reconciled: the reply is the line as stored, the reconciliation names the entry posted.
    body(await bank('unreconcile', { line_id: line }));
    const reply = body(await bank('reconcile', { line_id: line, account: '8000 Interest' }));
    expect(reply).toEqual({ message: `Bank line ${line} reconciled`, line: await listed(line) });
    const [rec] = await activeOf(line);
    expect(rec).toMatchObject({ payment_id: null, made_payment: false, journal_entry_id: reply.line.journal_entry_id });
    const posted = await svc.db('journal_lines').where({ entry_id: reply.line.journal_entry_id }).orderBy('id');
    expect(posted.map((l: { account: string; debit: string; credit: string }) => [l.account, l.debit, l.credit])).toEqual([
      ['Bank', '30.00', '0.00'],
      ['8000 Interest', '0.00', '30.00'],
    ]);
  });

  it('links a posted payment only while it is as read, and answers it as stored', async () => {
    const line = lines[1]!;
    const voided = await paid(40);
    // Read posted and decided to link it; meanwhile it is voided: the stale store writes nothing.
    const stale = await decided({ line_id: line, payment_id: voided });
    body(await call('invoicing.payment.void', { action: 'void', payment_id: voided, reason: 'typo' }));
    await expect(stale.store()).rejects.toBeInstanceOf(NotAsDecided);
    expect((await lineOf(line)).status).toBe('unmatched');
    await nothingOf(stale.plan);
    expect(await bank('reconcile', { line_id: line, payment_id: voided })).toMatchObject({
      ok: false,
      code: 'invalid_state',
      message: `Payment ${voided} is voided`,
    });

    // Decided to link another; meanwhile a store linking it to this line stands: the stale one writes nothing.
    const other = await paid(40);
    const first = await decided({ line_id: line, payment_id: other });
    const second = await decided({ line_id: line, payment_id: other });
    await first.store();
    await expect(second.store()).rejects.toBeInstanceOf(NotAsDecided);
    await nothingOf(second.plan);
    expect(await activeOf(line)).toEqual([expect.objectContaining({ id: first.plan.reconciliation.id, payment_id: other })]);

    // Undone, and linked through the service: the reply is the line as stored.
    body(await bank('unreconcile', { line_id: line }));
    const reply = body(await bank('reconcile', { line_id: line, payment_id: other }));
    expect(reply).toEqual({ message: `Bank line ${line} reconciled`, line: await listed(line) });
    expect(reply.line).toMatchObject({ payment_id: other, journal_entry_id: null });
    expect(await svc.db('payments').where({ id: other }).first()).toMatchObject({ status: 'posted' });
  });

  it('makes a payment of the line’s money only while its documents are as read, and answers it and its event as stored', async () => {
    const line = lines[2]!;
    const invoice = await issued(80);
    const req = { line_id: line, allocations: [{ invoice_id: invoice, amount: '50' }] };
    // Read with 80 due and decided to pay 50 of it; meanwhile 40 is paid: the stale store writes nothing.
    const stale = await decided(req);
    body(await call('invoicing.invoice.register_payment', { register_payment: true, id: invoice, amount: 40, payment_date: '2026-03-02' }));
    await expect(stale.store()).rejects.toBeInstanceOf(NotAsDecided);
    expect((await lineOf(line)).status).toBe('unmatched');
    await nothingOf(stale.plan);
    expect(await svc.db('invoices').where({ id: invoice }).first()).toMatchObject({ amount_paid: '40.00' });

    // Through the service, 50 of the 40 left is refused as create-payment refuses it, and nothing changes.
    const before = await testing.schemaSnapshot(svc.db, svc.schema);
    expect(await bank('reconcile', req)).toMatchObject({ ok: false, status: 400, code: 'validation_failed' });
    expect(await testing.schemaSnapshot(svc.db, svc.schema)).toEqual(before);

    // 40 to the invoice, the rest the partner's credit: the reply, the payment and its event as stored.
    const reply = body(await bank('reconcile', { line_id: line, allocations: [{ invoice_id: invoice, amount: 40 }] }));
    expect(reply).toEqual({ message: `Bank line ${line} reconciled`, line: await listed(line) });
    const [rec] = await activeOf(line);
    expect(rec).toMatchObject({ payment_id: reply.line.payment_id, made_payment: true, journal_entry_id: null });
    const payment = await svc.db('payments').where({ id: reply.line.payment_id }).first();
    expect(payment).toMatchObject({
      partner_id: 10,
      direction: 'in',
      amount: '50',
      allocated: '40.00',
      method: 'bank_transfer',
      journal: 'Bank',
      operation_key: `bank-reconciliation:${rec.id}`,
    });
    expect(await svc.db('invoices').where({ id: invoice }).first()).toMatchObject({ amount_paid: '80.00', invoicestatus: 'paid' });
    const events = await svc
      .db('outbox')
      .where({ type: 'invoicing.payment.created' })
      .whereRaw(`envelope->'data'->>'payment_id' = ?`, [String(payment.id)]);
    expect(events).toHaveLength(1);
    const [allocation] = await svc.db('payment_allocations').where({ payment_id: payment.id });
    expect(events[0].envelope.data).toMatchObject({
      payment_id: payment.id,
      partner_id: 10,
      direction: 'in',
      amount: 50,
      currency: 'EUR',
      payment_date: '2026-03-02',
      journal_entry_id: payment.journal_entry_id,
      allocations: [expect.objectContaining({ allocation_id: allocation.id, invoice_id: invoice, amount: 40 })],
    });
  });

  it('makes a payment left as the partner’s credit, with the fee posted, and answers it as stored', async () => {
    const line = lines[4]!;
    const reply = body(await bank('reconcile', { line_id: line, partner: 10, fee: 1.5, fee_account: '6800 Bank Charges' }));
    expect(reply).toEqual({ message: `Bank line ${line} reconciled`, line: await listed(line) });
    const payment = await svc.db('payments').where({ id: reply.line.payment_id }).first();
    expect(payment).toMatchObject({ amount: '26.5', allocated: '0.00', direction: 'in' });
    const fee = await svc.db('journal_lines').where({ entry_id: reply.line.journal_entry_id }).orderBy('id');
    expect(fee.map((l: { account: string; debit: string; credit: string }) => [l.account, l.debit, l.credit])).toEqual([
      ['6800 Bank Charges', '1.50', '0.00'],
      ['Bank', '0.00', '1.50'],
    ]);
    expect(
      await svc
        .db('outbox')
        .where({ type: 'invoicing.payment.created' })
        .whereRaw(`envelope->'data'->>'payment_id' = ?`, [String(payment.id)]),
    ).toHaveLength(1);
  });

  it('of two reconciles of one line at once, one stands and one payment is made', async () => {
    const line = lines[3]!;
    const [a, b] = [await issued(100), await issued(100)];
    const replies = await Promise.all([
      bank('reconcile', { line_id: line, allocations: [{ invoice_id: a, amount: 60 }] }),
      bank('reconcile', { line_id: line, allocations: [{ invoice_id: b, amount: 60 }] }),
    ]);
    expect(replies.filter((r) => r.ok)).toHaveLength(1);
    expect(replies.find((r) => !r.ok)).toMatchObject({
      status: 400,
      code: 'invalid_state',
      message: `Bank line ${line} is already reconciled`,
    });
    const recs = await svc.db('bank_reconciliations').where({ line_id: line });
    expect(recs).toHaveLength(1);
    expect(await svc.db('payments').whereLike('operation_key', 'bank-reconciliation:%').where({ id: recs[0].payment_id })).toHaveLength(1);
    const made = await svc.db('payments').whereIn('operation_key', [`bank-reconciliation:${recs[0].id}`]);
    expect(made).toHaveLength(1);
    const dues = await svc.db('invoices').whereIn('id', [a, b]).orderBy('id').pluck('amount_paid');
    expect(dues.sort()).toEqual(['0.00', '60.00']);

    // The same of two postings of a debit line at once.
    const out = lines[5]!;
    const posted = await Promise.all([
      bank('reconcile', { line_id: out, account: '6800 Bank Charges' }),
      bank('reconcile', { line_id: out, account: '6900 Other' }),
    ]);
    expect(posted.filter((r) => r.ok)).toHaveLength(1);
    expect(await svc.db('bank_reconciliations').where({ line_id: out })).toHaveLength(1);
    const entries = await svc.db('journal_entries').where({ kind: 'bank', reference: `Bank line ${out}` });
    expect(entries).toHaveLength(1);
  });

  it('of two links of one line to a payment at once, one stands', async () => {
    const payment = await paid(70);
    const line = lines[6]!;
    const before = await decided({ line_id: line, payment_id: payment });
    const replies = await Promise.all([
      bank('reconcile', { line_id: line, payment_id: payment }),
      bank('reconcile', { line_id: line, payment_id: payment }),
    ]);
    expect(replies.filter((r) => r.ok)).toHaveLength(1);
    // A store decided before both: the line moved, it writes nothing.
    await expect(before.store()).rejects.toBeInstanceOf(NotAsDecided);
    expect(await svc.db('bank_reconciliations').where({ payment_id: payment })).toHaveLength(1);
  });

  it('decided under the locks (the way apply and import go), stores what it decided, each way', async () => {
    const locked = (req: ReconcileAsked) => svc.db.transaction((trx) => reconcileLine({ db: trx, orgId: 1, userId: '5' }, req, 'at once'));
    const posting = await locked({ line_id: lines[7]!, account: '8000 Interest' });
    expect(posting.reply).toEqual({ message: `Bank line ${lines[7]} reconciled`, line: await listed(lines[7]!) });
    expect(await activeOf(lines[7]!)).toEqual([
      expect.objectContaining({ id: posting.reconciliation.id, journal_entry_id: posting.entry!.id }),
    ]);

    const payment = await paid(35);
    const link = await locked({ line_id: lines[8]!, payment_id: payment });
    expect(link.reply).toEqual({ message: `Bank line ${lines[8]} reconciled`, line: await listed(lines[8]!) });
    expect(link.reply.line).toMatchObject({ payment_id: payment });
    await expect(locked({ line_id: lines[9]!, payment_id: payment })).rejects.toMatchObject({ code: 'validation_failed' });

    const invoice = await issued(60);
    const made = await locked({
      line_id: lines[9]!,
      allocations: [{ invoice_id: invoice, amount: '46' }],
      fee: '1',
      fee_account: '6800 Bank Charges',
    });
    expect(made.reply).toEqual({ message: `Bank line ${lines[9]} reconciled`, line: await listed(lines[9]!) });
    expect(await svc.db('payments').where({ id: made.reply.line.payment_id }).first()).toMatchObject({
      amount: '46',
      allocated: '46.00',
      operation_key: `bank-reconciliation:${made.reconciliation.id}`,
    });
    expect(await svc.db('invoices').where({ id: invoice }).first()).toMatchObject({ amount_paid: '46.00' });
    expect(await svc.db('journal_entries').where({ id: made.reply.line.journal_entry_id }).first()).toMatchObject({
      reference: `Bank fee line ${lines[9]}`,
    });
  });
});
