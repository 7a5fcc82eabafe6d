import { NotAsDecided, storeAlone } from '@bo/runtime';
import * as testing from '@bo/testkit';
import { camt053 } from '../../../tests/support/bank-files';
import { decideUndo, type UndoPlan } from '../src/bank/decide-undo';
import { loadUnreconcile, readUnreconcile, storeUndo, undoAlone } from '../src/bank/undo.repository';
import { body, startWithFakePartners, type FakePartner } from './fixtures';

// invoicing.bank.unreconcile of a reconciled line stored as one statement (load → decide → store): a
// store decided on an unlocked read writes nothing once the line, the payment its reconciliation made
// or a document that payment settles moved; what the service answers, and the void's event it sends,
// is what it stored; and of two unreconciles of one line at once, one stands.
const IBAN = 'DE89370400440532013000';
const VENDOR_IBAN = 'FR1420041010050500013M02606';
const partnersTable: FakePartner[] = [
  { org: 1, id: 10, partnername: 'Acme', credit_limit: 0, balance: 0, record: { currency: 'EUR' } },
  {
    org: 1,
    id: 11,
    partnername: 'Supplies Ltd',
    credit_limit: 0,
    balance: 0,
    record: { currency: 'EUR', bank_accounts: [{ iban: VENDOR_IBAN, bic: null, name: 'Supplies Ltd' }] },
  },
];
const NOTHING = { ok: true, status: 200, body: {} } as const;
const AMOUNTS = ['30.00', '30.00', '30.00', '30.00', '30.00', '30.00', '30.00', '30.00'];

describe('invoicing service: a bank line unreconciled as one statement', () => {
  let svc: testing.TestService;
  let lines: number[] = [];
  let debitLine = 0;
  let bill = 0;
  const call = (operation: string, payload: Record<string, unknown>) => svc.call(operation, { userid: '5', ...payload }, 1);
  const bank = (action: string, payload: Record<string, unknown> = {}) => call(`invoicing.bank.${action}`, { action, ...payload });
  const lineOf = async (id: number) => (await svc.db('bank_lines').where({ org_id: 1, id }).first()) as { status: string };
  const listed = async (id: number) =>
    (body(await bank('lines', { status: 'unmatched', page_size: 100 })).lines as Array<{ id: number }>).find((l) => l.id === id);
  const activeOf = async (line: number) => svc.db('bank_reconciliations').where({ line_id: line, status: 'active' });
  const paymentOf = async (id: number) => svc.db('payments').where({ id }).first();
  const invoiceOf = async (id: number) => svc.db('invoices').where({ id }).first();
  const voidedEvents = async (payment: number) =>
    svc
      .db('outbox')
      .where({ type: 'invoicing.payment.voided' })
      .whereRaw(`envelope->'data'->>'payment_id' = ?`, [String(payment)]);
  const postedLines = async (entry: number) =>
    (await svc.db('journal_lines').where({ entry_id: entry }).orderBy('id')).map(
      (l: { account: string; debit: string; credit: string; label: string }) => [l.account, l.debit, l.credit, l.label],
    );

  async function document(type: 'invoiceout' | 'invoicein', partner: number, price: number): Promise<number> {
    const inv = body(
      await call('invoicing.invoice.create', {
        invoicetype: type,
        partner,
        invoicedatetime: '2026-02-01T09:00:00',
        line_items: [{ product_id: 7, quantity: 1, price, tax_rate: 0, tax_included: false }],
      }),
    ).invoice;
    body(await call('invoicing.invoice.validate', { validate_invoice: true, id: inv.id }));
    return inv.id as number;
  }

  /** An undo read with no lock and decided as `alone` decides it, and its store. */
  async function decided(line: number) {
    const { load, read } = await readUnreconcile(svc.db, 1, line);
    const plan = decideUndo(load, line, { orgId: 1, instant: new Date() });
    if (plan.kind !== 'undo') throw new Error('not an undo');
    const write = undoAlone(plan, read);
    return { plan, store: () => storeAlone(svc.db, { ...write, events: [], reply: {} }, undefined, NOTHING) };
  }
  /** Nothing of a plan stayed: no entry under the ids it drew, its payment not voided, its reconciliation active. */
  async function nothingOf(plan: UndoPlan) {
    if (plan.reversal) expect(await svc.db('journal_entries').where({ id: plan.reversal.id })).toEqual([]);
    if (plan.void) {
      expect(await svc.db('journal_entries').where({ id: plan.void.entryId })).toEqual([]);
      expect(await paymentOf(plan.void.payment.id)).toMatchObject({ status: 'posted' });
      expect(await voidedEvents(plan.void.payment.id)).toEqual([]);
    }
    expect(await svc.db('bank_reconciliations').where({ id: plan.reconciliation.id }).first()).toMatchObject({
      status: 'active',
      undone_at: null,
    });
  }

  beforeAll(async () => {
    let state;
    ({ svc, state } = await startWithFakePartners(partnersTable));
    state.profiles.set(1, testing.profileRecord(1, { iban: IBAN, default_currency: 'EUR' }));
    body(await bank('settings', { bank_autoreconcile: false }));
    // A vendor bill in a payment file: the statement's debit line pays its transfer.
    bill = await document('invoicein', 11, 30);
    const file = body(await bank('payment_file', { bills: [bill], execution_date: '2026-03-02' }));
    const endToEnd = (file.bills as Array<{ end_to_end_id: string }>)[0]!.end_to_end_id;
    const statement = camt053({
      id: 'STMT-U',
      sequence: 1,
      iban: IBAN,
      currency: 'EUR',
      opening: '0.00',
      closing: (AMOUNTS.reduce((s, a) => s + Number(a), 0) - 30).toFixed(2),
      date: '2026-03-02',
      lines: [
        ...AMOUNTS.map((amount, i) => ({ amount, booking_date: '2026-03-02', bank_reference: `RU-${i}`, text: `n${i}` })),
        { amount: '-30.00', booking_date: '2026-03-02', bank_reference: 'RU-OUT', end_to_end_id: endToEnd, name: 'Supplies Ltd' },
      ],
    });
    const imported = body(
      await bank('import_statement', { format: 'camt053', journal: IBAN, content_base64: Buffer.from(statement).toString('base64') }),
    );
    const all = (body(await bank('lines', { statement: imported.statement.id })).lines as Array<{ id: number; amount: number }>).map(
      (l) => l,
    );
    lines = all.filter((l) => l.amount > 0).map((l) => l.id);
    debitLine = all.find((l) => l.amount < 0)!.id;
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('reverses a posting to an account only while the line is as read, and answers it as stored', async () => {
    const line = lines[0]!;
    const first = body(await bank('reconcile', { line_id: line, account: '8000 Interest' }));
    // Read reconciled and decided to undo; meanwhile it is undone and reconciled again: the stale store writes nothing.
    const stale = await decided(line);
    expect(stale.plan.void).toBeUndefined();
    body(await bank('unreconcile', { line_id: line }));
    const again = body(await bank('reconcile', { line_id: line, account: '8000 Interest' }));
    await expect(stale.store()).rejects.toBeInstanceOf(NotAsDecided);
    expect((await lineOf(line)).status).toBe('reconciled');
    expect(await activeOf(line)).toEqual([expect.objectContaining({ journal_entry_id: again.line.journal_entry_id })]);
    expect(await svc.db('journal_entries').where({ id: stale.plan.reversal!.id })).toEqual([]);
    expect(
      await svc.db('bank_reconciliations').where({ line_id: line, journal_entry_id: first.line.journal_entry_id }).first(),
    ).toMatchObject({ status: 'undone' });

    // Through the service: the line as stored, the posting reversed on the line's day, the reconciliation undone.
    const [rec] = await activeOf(line);
    const reply = body(await bank('unreconcile', { line_id: line }));
    expect(reply).toEqual({ message: `Bank line ${line} is open again`, line: await listed(line) });
    expect(reply.line).toMatchObject({ status: 'unmatched', payment_id: null, journal_entry_id: null });
    expect(await activeOf(line)).toEqual([]);
    expect(await svc.db('bank_reconciliations').where({ id: rec.id }).first()).toMatchObject({
      status: 'undone',
      undone_at: expect.any(Date),
    });
    const [reversal] = await svc
      .db('journal_entries')
      .where({ kind: 'bank', reference: `Undo bank line ${line}` })
      .orderBy('id', 'desc');
    expect(reversal).toMatchObject({ journalname: 'Bank', journaldate: '2026-03-02', invoice_id: null, payment_id: null });
    expect(await postedLines(reversal.id)).toEqual([
      ['Bank', '0.00', '30.00', 'Undo: Bank line'],
      ['8000 Interest', '30.00', '0.00', 'Undo: Bank line'],
    ]);
  });

  it('voids the payment it made only while the payment is as read, and answers it and the void’s event as stored', async () => {
    const line = lines[1]!;
    const made = body(await bank('reconcile', { line_id: line, partner: 10, fee: 1, fee_account: '6800 Bank Charges' }));
    const payment = made.line.payment_id as number;
    const invoice = await document('invoiceout', 10, 100);
    // Read with its 31.00 unallocated and decided to void it; meanwhile 10 of it is allocated: the stale store writes nothing.
    const stale = await decided(line);
    expect(stale.plan.void!.payment.id).toBe(payment);
    body(
      await call('invoicing.payment.allocate', {
        action: 'allocate',
        payment_id: payment,
        allocations: [{ invoice_id: invoice, amount: 10 }],
        allocation_date: '2026-03-02',
      }),
    );
    await expect(stale.store()).rejects.toBeInstanceOf(NotAsDecided);
    expect((await lineOf(line)).status).toBe('reconciled');
    await nothingOf(stale.plan);
    expect(await invoiceOf(invoice)).toMatchObject({ amount_paid: '10.00' });

    // Through the service: the payment voided (its allocation too), the fee reversed after the void, the line as stored.
    const reply = body(await bank('unreconcile', { line_id: line }));
    expect(reply).toEqual({ message: `Bank line ${line} is open again`, line: await listed(line) });
    const voided = await paymentOf(payment);
    expect(voided).toMatchObject({ status: 'voided', allocated: '0', void_reason: `Bank line ${line} unreconciled` });
    const doc = await invoiceOf(invoice);
    expect(doc).toMatchObject({ amount_paid: '0.00', invoicestatus: 'open' });
    const [reversal] = await svc.db('journal_entries').where({ kind: 'bank', reference: `Undo bank line ${line}` });
    expect(reversal.id).toBeGreaterThan(voided.void_journal_entry_id);
    expect(await postedLines(reversal.id)).toEqual([
      ['6800 Bank Charges', '0.00', '1.00', 'Undo: Bank fee'],
      ['Bank', '1.00', '0.00', 'Undo: Bank fee'],
    ]);
    const events = await voidedEvents(payment);
    expect(events).toHaveLength(1);
    const [allocation] = await svc.db('payment_allocations').where({ payment_id: payment });
    expect(allocation).toMatchObject({ status: 'voided' });
    expect(events[0].envelope.data).toMatchObject({
      payment_id: payment,
      partner_id: 10,
      direction: 'in',
      amount: 31,
      currency: 'EUR',
      void_date: voided.void_date,
      journal_entry_id: voided.void_journal_entry_id,
      allocations: [
        expect.objectContaining({ allocation_id: allocation.id, invoice_id: invoice, amount: 10, invoice_version: doc.version }),
      ],
    });
  });

  it('refuses, as the void refuses it, a payment refunded meanwhile, and changes nothing', async () => {
    const line = lines[2]!;
    const payment = body(await bank('reconcile', { line_id: line, partner: 10 })).line.payment_id as number;
    const stale = await decided(line);
    body(await call('invoicing.payment.refund', { action: 'refund', payment_id: payment, amount: 5, refund_date: '2026-03-03' }));
    await expect(stale.store()).rejects.toBeInstanceOf(NotAsDecided);
    await nothingOf(stale.plan);
    const before = await testing.schemaSnapshot(svc.db, svc.schema);
    expect(await bank('unreconcile', { line_id: line })).toMatchObject({
      ok: false,
      status: 400,
      code: 'invalid_state',
      message: `Payment ${payment} has refunds of 5.00; a refunded payment cannot be voided`,
    });
    expect(await testing.schemaSnapshot(svc.db, svc.schema)).toEqual(before);
  });

  it('stores the void only while the documents its payment settles are as read', async () => {
    const line = lines[3]!;
    const invoice = await document('invoiceout', 10, 100);
    const payment = body(await bank('reconcile', { line_id: line, allocations: [{ invoice_id: invoice, amount: 30 }] })).line
      .payment_id as number;
    // Read with 30 paid and decided to void; meanwhile 20 more is paid: the stale store writes nothing.
    const stale = await decided(line);
    body(await call('invoicing.invoice.register_payment', { register_payment: true, id: invoice, amount: 20, payment_date: '2026-03-02' }));
    await expect(stale.store()).rejects.toBeInstanceOf(NotAsDecided);
    await nothingOf(stale.plan);
    expect(await invoiceOf(invoice)).toMatchObject({ amount_paid: '50.00' });

    const reply = body(await bank('unreconcile', { line_id: line }));
    expect(reply).toEqual({ message: `Bank line ${line} is open again`, line: await listed(line) });
    expect(await invoiceOf(invoice)).toMatchObject({ amount_paid: '20.00', invoicestatus: 'open' });
    expect(await paymentOf(payment)).toMatchObject({ status: 'voided' });
    expect(await voidedEvents(payment)).toHaveLength(1);
  });

  it('puts the bills the line paid back in payment, and voids the payment to the vendor', async () => {
    const made = body(await bank('reconcile', { line_id: debitLine, allocations: [{ invoice_id: bill, amount: 30 }] }));
    const inFile = async () => svc.db('payment_file_bills').where({ org_id: 1, invoice_id: bill }).first();
    expect(await inFile()).toMatchObject({ status: 'paid', line_id: debitLine });
    const stale = await decided(debitLine);
    expect(stale.plan.bills).toEqual([(await inFile()).id]);

    const reply = body(await bank('unreconcile', { line_id: debitLine }));
    expect(reply).toEqual({ message: `Bank line ${debitLine} is open again`, line: await listed(debitLine) });
    expect(await inFile()).toMatchObject({ status: 'in_payment', line_id: null });
    expect(await invoiceOf(bill)).toMatchObject({ amount_paid: '0.00', invoicestatus: 'open' });
    expect(await paymentOf(made.line.payment_id)).toMatchObject({ status: 'voided', direction: 'out' });
    // The store decided before it: the line moved, it writes nothing.
    await expect(stale.store()).rejects.toBeInstanceOf(NotAsDecided);
    expect(await voidedEvents(made.line.payment_id)).toHaveLength(1);
  });

  it('of two unreconciles of one line at once, one stands: one void, one event, one reversal', async () => {
    const line = lines[4]!;
    const invoice = await document('invoiceout', 10, 100);
    const payment = body(
      await bank('reconcile', {
        line_id: line,
        allocations: [{ invoice_id: invoice, amount: 29 }],
        fee: 1,
        fee_account: '6800 Bank Charges',
      }),
    ).line.payment_id as number;
    const replies = await Promise.all([bank('unreconcile', { line_id: line }), bank('unreconcile', { line_id: line })]);
    expect(replies.filter((r) => r.ok)).toHaveLength(1);
    expect(replies.find((r) => !r.ok)).toMatchObject({
      status: 400,
      code: 'invalid_state',
      message: `Bank line ${line} is not reconciled`,
    });
    expect(await svc.db('bank_reconciliations').where({ line_id: line, status: 'undone' })).toHaveLength(1);
    expect(await svc.db('journal_entries').where({ kind: 'void', payment_id: payment })).toHaveLength(1);
    expect(await svc.db('journal_entries').where({ kind: 'bank', reference: `Undo bank line ${line}` })).toHaveLength(1);
    expect(await voidedEvents(payment)).toHaveLength(1);
    expect(await invoiceOf(invoice)).toMatchObject({ amount_paid: '0.00' });

    // The same of a posting to an account.
    const posted = lines[5]!;
    body(await bank('reconcile', { line_id: posted, account: '8000 Interest' }));
    const both = await Promise.all([bank('unreconcile', { line_id: posted }), bank('unreconcile', { line_id: posted })]);
    expect(both.filter((r) => r.ok)).toHaveLength(1);
    expect(await svc.db('journal_entries').where({ kind: 'bank', reference: `Undo bank line ${posted}` })).toHaveLength(1);
    expect((await lineOf(posted)).status).toBe('unmatched');
  });

  it('decided under the locks (the way apply goes), stores what it decided', async () => {
    const line = lines[6]!;
    const invoice = await document('invoiceout', 10, 100);
    const payment = body(await bank('reconcile', { line_id: line, allocations: [{ invoice_id: invoice, amount: 30 }] })).line
      .payment_id as number;
    const plan = await svc.db.transaction(async (trx) => {
      const decidedPlan = decideUndo(await loadUnreconcile(trx, 1, line), line, { orgId: 1, instant: new Date() });
      if (decidedPlan.kind !== 'undo') throw new Error('not an undo');
      await storeUndo(trx, decidedPlan, 'at once');
      return decidedPlan;
    });
    expect(plan.reply).toEqual({ message: `Bank line ${line} is open again`, line: await listed(line) });
    expect(await paymentOf(payment)).toMatchObject({ status: 'voided', void_journal_entry_id: plan.void!.entryId });
    expect(await invoiceOf(invoice)).toMatchObject({ amount_paid: '0.00', version: plan.void!.documents[0]!.version });
    expect(await activeOf(line)).toEqual([]);
    // A line not reconciled, refused under the locks as before.
    await expect(
      svc.db.transaction(async (trx) => decideUndo(await loadUnreconcile(trx, 1, line), line, { orgId: 1, instant: new Date() })),
    ).rejects.toMatchObject({ code: 'invalid_state', message: `Bank line ${line} is not reconciled` });
  });
});
