import type { RpcReply } from '@bo/contracts';
import { NotAsDecided, storeAlone } from '@bo/runtime';
import * as testing from '@bo/testkit';
import { decidePaymentRegistration, rateWindow } from '../src/invoice/decide-registration';
import { readRegistration, storeRegistrationAlone } from '../src/invoice/registration.repository';
import { decideNewPayment } from '../src/payment/decide-new-payment';
import { readNewPayment, storeNewPaymentAlone } from '../src/payment/new-payment.repository';
import { decideRefund } from '../src/payment/decide-refund';
import { decideVoid } from '../src/payment/decide-void';
import { readRefund, storeRefundAlone } from '../src/payment/refund.repository';
import { decideWriteOffPlan } from '../src/payment/decide-write-off';
import { readVoid, storeVoidAlone } from '../src/payment/void.repository';
import { readWriteOff, storeWriteOffAlone } from '../src/payment/write-off.repository';
import { setAccountingCurrency } from './books.fixtures';
import { body, postingWaitsForLock, startWithFakePartners, type FakePartner } from './fixtures';

const partnersTable: FakePartner[] = [
  { org: 1, id: 10, partnername: 'Acme', credit_limit: 0, balance: 0, record: { currency: 'EUR' } },
  { org: 1, id: 11, partnername: 'Globex', credit_limit: 0, balance: 0, record: { currency: 'EUR' } },
  { org: 1, id: 12, partnername: 'Dollar Inc', credit_limit: 0, balance: 0, record: { currency: 'USD' } },
  { org: 2, id: 20, partnername: 'Initech', credit_limit: 0, balance: 0, record: { currency: 'EUR' } },
  { org: 3, id: 30, partnername: 'Dollar GmbH', credit_limit: 0, balance: 0, record: { currency: 'USD' } },
];
/** 100.00 net, no tax: totals are round. */
const line = (price: number) => ({ product_id: 7, quantity: 1, price, tax_rate: 0, tax_included: false });

describe('invoicing service: cash application', () => {
  let svc: testing.TestService;
  let events: Awaited<ReturnType<testing.TestService['collect']>>;

  beforeAll(async () => {
    ({ svc } = await startWithFakePartners(partnersTable));
    events = await svc.collect(['invoicing.payment.*', 'invoicing.invoice.written_off', 'invoicing.invoice.payment_registered']);
  });
  afterAll(async () => {
    await svc?.stop();
  });

  const call = (operation: string, payload: Record<string, unknown>, org = 1) => svc.call(operation, { userid: '5', ...payload }, org);
  /** A validated document of `partner` for `price`, dated before the payments of these tests (dates run forward). */
  async function issued(price: number, over: Record<string, unknown> = {}, org = 1): Promise<number> {
    const partner = org === 2 ? 20 : 10;
    const inv = body(
      await call(
        'invoicing.invoice.create',
        { invoicetype: 'invoiceout', partner, invoicedatetime: '2026-02-01T09:00:00', line_items: [line(price)], ...over },
        org,
      ),
    ).invoice;
    body(await call('invoicing.invoice.validate', { validate_invoice: true, id: inv.id }, org));
    return inv.id as number;
  }
  const pay = (payload: Record<string, unknown>, org = 1) =>
    call(
      'invoicing.payment.create',
      { action: 'create', partner: 10, currency: 'EUR', direction: 'in', payment_date: '2026-03-01', ...payload },
      org,
    );
  const invoice = (id: number) => svc.db('invoices').where({ id }).first();
  /** Every journal entry of the organization balances. */
  async function journalBalances(): Promise<void> {
    const { rows } = await svc.db.raw(
      'select e.id, sum(l.debit) as d, sum(l.credit) as c from journal_entries e join journal_lines l on l.entry_id = e.id group by e.id having sum(l.debit) <> sum(l.credit)',
    );
    expect(rows).toEqual([]);
  }
  /** The refusal, and proof it changed nothing. */
  async function refusedUnchanged(send: () => Promise<RpcReply>, status: number, code: string, field: string | null) {
    const before = await testing.schemaSnapshot(svc.db, svc.schema);
    const reply = (await send()) as { ok: boolean; status: number; code: string; errors?: Array<{ field: string }> };
    expect(reply).toMatchObject({ ok: false, status, code });
    if (field !== null) expect(reply.errors?.map((e) => e.field) ?? []).toContain(field);
    expect(await testing.schemaSnapshot(svc.db, svc.schema)).toEqual(before);
  }

  it('records a payment across two invoices; the rest is the partner’s credit, posted to the receivable', async () => {
    const a = await issued(100);
    const b = await issued(50);
    const reply = body(
      await pay({
        amount: 200,
        method: 'bank_transfer',
        reference: 'TRF-1',
        allocations: [
          { invoice_id: a, amount: 100 },
          { invoice_id: b, amount: 20 },
        ],
      }),
    );
    expect(reply.payment).toMatchObject({
      partner: 10,
      direction: 'in',
      amount: 200,
      currency: 'EUR',
      status: 'posted',
      allocated: 120,
      unallocated: 80,
    });
    expect(reply.payment.allocations.map((x: any) => [x.invoice_id, x.amount, x.status])).toEqual([
      [a, 100, 'active'],
      [b, 20, 'active'],
    ]);
    expect(reply.invoices.map((i: any) => [i.id, i.invoicestatus, i.amount_paid, i.due_amount])).toEqual([
      [a, 'paid', 100, 0],
      [b, 'open', 20, 30],
    ]);
    const lines = await svc.db('journal_lines').where({ entry_id: reply.payment.journal_entry_id }).orderBy('id');
    expect(lines.map((l) => [l.account, l.debit, l.credit])).toEqual([
      ['Bank', '200.00', '0.00'],
      ['1200 Accounts Receivable', '0.00', '200.00'],
    ]);
    await testing.waitUntil(() => events.some((e) => e.type === 'invoicing.payment.created' && e.data.payment_id === reply.payment.id));
    const event = events.find((e) => e.type === 'invoicing.payment.created' && e.data.payment_id === reply.payment.id);
    expect(event?.data).toMatchObject({ partner_id: 10, direction: 'in', side: 'customer', amount: 200 });
    expect((event?.data.allocations as unknown[]).length).toBe(2);

    // The rest, allocated later to the open one and a new one.
    const c = await issued(70);
    const allocated = body(
      await call('invoicing.payment.allocate', {
        action: 'allocate',
        payment_id: reply.payment.id,
        allocations: [
          { invoice_id: b, amount: 30 },
          { invoice_id: c, amount: 50 },
        ],
      }),
    );
    expect(allocated.payment).toMatchObject({ allocated: 200, unallocated: 0 });
    expect(allocated.invoices.map((i: any) => [i.invoicestatus, i.due_amount])).toEqual([
      ['paid', 0],
      ['open', 20],
    ]);
    const got = body(await call('invoicing.payment.get', { action: 'get', payment_id: reply.payment.id }));
    expect(got.payment.allocations).toHaveLength(4);
    const listed = body(await call('invoicing.payment.list', { action: 'list', partner: 10 }));
    expect(listed.payments.map((p: any) => p.id)).toContain(reply.payment.id);
    await journalBalances();
  });

  it('refuses over-allocation, cross-partner, cross-organization and currency mismatch, changing nothing', async () => {
    const a = await issued(100);
    const theirs = await issued(100, { partner: 11 });
    const otherOrg = await issued(100, {}, 2);
    const dollars = await issued(100, { partner: 12 });
    const send = (payload: Record<string, unknown>) => () => pay({ amount: 100, ...payload });
    await refusedUnchanged(send({ allocations: [{ invoice_id: a, amount: 100.01 }] }), 400, 'validation_failed', 'allocations.0.amount');
    await refusedUnchanged(send({ amount: 50, allocations: [{ invoice_id: a, amount: 60 }] }), 400, 'validation_failed', 'amount');
    await refusedUnchanged(
      send({ allocations: [{ invoice_id: theirs, amount: 10 }] }),
      400,
      'validation_failed',
      'allocations.0.invoice_id',
    );
    await refusedUnchanged(send({ allocations: [{ invoice_id: otherOrg, amount: 10 }] }), 400, 'not_found', 'allocations.0.invoice_id');
    await refusedUnchanged(
      () => pay({ partner: 12, currency: 'EUR', amount: 10, allocations: [{ invoice_id: dollars, amount: 10 }] }),
      400,
      'validation_failed',
      'currency',
    );
    // Allocating an existing payment's credit: beyond it, or to another partner's invoice.
    const credit = body(await pay({ amount: 30 })).payment;
    const allocate = (allocations: unknown[]) => () =>
      call('invoicing.payment.allocate', { action: 'allocate', payment_id: credit.id, allocations });
    await refusedUnchanged(allocate([{ invoice_id: a, amount: 30.01 }]), 400, 'validation_failed', 'allocations');
    await refusedUnchanged(allocate([{ invoice_id: theirs, amount: 1 }]), 400, 'validation_failed', 'allocations.0.invoice_id');
    // Another organization's payment is not found.
    await refusedUnchanged(
      () =>
        call('invoicing.payment.allocate', { action: 'allocate', payment_id: credit.id, allocations: [{ invoice_id: a, amount: 1 }] }, 2),
      400,
      'not_found',
      null,
    );
    expect((await invoice(a)).amount_paid).toBe('0.00');
  });

  it('refunds unallocated credit, never more than there is', async () => {
    const credit = body(await pay({ amount: 40 })).payment;
    await refusedUnchanged(
      () => call('invoicing.payment.refund', { action: 'refund', payment_id: credit.id, amount: 40.01 }),
      400,
      'validation_failed',
      'amount',
    );
    const refunded = body(
      await call('invoicing.payment.refund', { action: 'refund', payment_id: credit.id, amount: 15, method: 'bank_transfer' }),
    );
    expect(refunded.refund).toMatchObject({ source: 'payment', amount: 15, partner: 10 });
    expect(refunded.payment).toMatchObject({ refunded: 15, unallocated: 25 });
    const lines = await svc.db('journal_lines').where({ entry_id: refunded.refund.journal_entry_id }).orderBy('id');
    expect(lines.map((l) => [l.account, l.debit, l.credit])).toEqual([
      ['1200 Accounts Receivable', '15.00', '0.00'],
      ['Bank', '0.00', '15.00'],
    ]);
    // A refunded payment is not voided: the money paid back would lose its cause.
    expect(await call('invoicing.payment.void', { action: 'void', payment_id: credit.id })).toMatchObject({
      ok: false,
      code: 'invalid_state',
    });
  });

  it('voids a payment with a reversal entry: its invoices owe again; a second void is refused and changes nothing', async () => {
    const a = await issued(100);
    const p = body(await pay({ amount: 100, allocations: [{ invoice_id: a, amount: 100 }] })).payment;
    expect((await invoice(a)).invoicestatus).toBe('paid');
    const voided = body(await call('invoicing.payment.void', { action: 'void', payment_id: p.id, reason: 'bounced' }));
    expect(voided.payment).toMatchObject({ status: 'voided', allocated: 0, unallocated: 0, void_reason: 'bounced' });
    expect(voided.payment.allocations.map((x: any) => x.status)).toEqual(['voided']);
    expect(voided.invoices[0]).toMatchObject({ invoicestatus: 'open', amount_paid: 0, due_amount: 100 });
    const reversal = await svc.db('journal_lines').where({ entry_id: voided.payment.void_journal_entry_id }).orderBy('id');
    expect(reversal.map((l) => [l.account, l.debit, l.credit])).toEqual([
      ['Bank', '0.00', '100.00'],
      ['1200 Accounts Receivable', '100.00', '0.00'],
    ]);
    // The original entry stays.
    expect(await svc.db('journal_entries').where({ id: p.journal_entry_id }).first()).toBeTruthy();
    await refusedUnchanged(() => call('invoicing.payment.void', { action: 'void', payment_id: p.id }), 400, 'invalid_state', null);
    await journalBalances();
  });

  it('a credit note settles the invoice it credits when validated; one that credits none settles an invoice only when allocated', async () => {
    const credited = await issued(100);
    const settling = body(
      await call('invoicing.invoice.create', {
        invoicetype: 'creditout',
        partner: 10,
        sourcetype: 'invoice',
        sourceid: String(credited),
        invoicedatetime: '2026-02-01T09:00:00',
        line_items: [line(30)],
      }),
    ).invoice;
    expect(body(await call('invoicing.invoice.validate', { validate_invoice: true, id: settling.id })).invoice).toMatchObject({
      invoicestatus: 'paid',
      due_amount: 0,
    });
    expect((await invoice(credited)).amount_paid).toBe('30.00');
    const settlement = await svc.db('payment_allocations').where({ credit_note_id: settling.id });
    // Like every allocation it posts an entry of its own: the credit applied and the invoice settled, 30.00 each.
    expect(settlement.map((x) => [x.invoice_id, x.amount, x.settles_credited])).toEqual([[credited, '30.00', true]]);
    const settlementLines = await svc.db('journal_lines').where({ entry_id: settlement[0].journal_entry_id }).orderBy('id');
    expect(settlementLines.map((l) => [l.debit, l.credit])).toEqual([
      ['30.00', '0.00'],
      ['0.00', '30.00'],
    ]);

    const a = await issued(100);
    // Its source fields are free text: it credits no invoice in particular.
    const note = body(
      await call('invoicing.invoice.create', {
        invoicetype: 'creditout',
        partner: 10,
        invoicedatetime: '2026-02-01T09:00:00',
        line_items: [line(30)],
      }),
    ).invoice;
    body(await call('invoicing.invoice.validate', { validate_invoice: true, id: note.id }));
    // Validated, it reduces nothing on the invoice by itself.
    expect((await invoice(a)).amount_paid).toBe('0.00');
    const reply = body(
      await call('invoicing.payment.allocate', {
        action: 'allocate',
        credit_note_id: note.id,
        allocations: [{ invoice_id: a, amount: 30 }],
      }),
    );
    expect(reply.credit_note).toMatchObject({ id: note.id, invoicestatus: 'paid', due_amount: 0 });
    expect(reply.invoices[0]).toMatchObject({ id: a, amount_paid: 30, due_amount: 70 });
    // Its own entry, though credit and invoice sit on one account: the credit applied and the invoice settled, each a line.
    const allocated = reply.allocations[0];
    expect(allocated).toMatchObject({ source: 'credit_note', credit_note_id: note.id, journal_entry_id: expect.any(Number) });
    const lines = await svc.db('journal_lines').where({ entry_id: allocated.journal_entry_id }).orderBy('id');
    expect(lines.map((l) => [l.account, l.label, Number(l.debit), Number(l.credit)])).toEqual([
      ['1200 Accounts Receivable', 'Credit applied', 30, 0],
      ['1200 Accounts Receivable', 'Settlement', 0, 30],
    ]);
    // Nothing left on it to give.
    await refusedUnchanged(
      () =>
        call('invoicing.payment.allocate', { action: 'allocate', credit_note_id: note.id, allocations: [{ invoice_id: a, amount: 1 }] }),
      400,
      'validation_failed',
      'allocations',
    );
  });

  it('writes off an open invoice as a bad debt; refuses drafts, paid and cancelled invoices', async () => {
    const a = await issued(100);
    body(await pay({ amount: 40, allocations: [{ invoice_id: a, amount: 40 }] }));
    const reply = body(await call('invoicing.invoice.write_off', { write_off: true, id: a, reason: 'customer insolvent' }));
    expect(reply.invoice).toMatchObject({ invoicestatus: 'written_off', amount_paid: 40, due_amount: 0, written_off_amount: 60 });
    const lines = await svc.db('journal_lines').where({ entry_id: reply.invoice.journal_entry_id }).orderBy('id');
    expect(lines.map((l) => [l.account, l.debit, l.credit])).toEqual([
      ['6800 Bad Debts', '60.00', '0.00'],
      ['1200 Accounts Receivable', '0.00', '60.00'],
    ]);
    await testing.waitUntil(() => events.some((e) => e.type === 'invoicing.invoice.written_off' && e.data.invoice_id === a));

    const draft = body(await call('invoicing.invoice.create', { invoicetype: 'invoiceout', partner: 10, line_items: [line(5)] })).invoice;
    const cancelled = body(
      await call('invoicing.invoice.create', { invoicetype: 'invoiceout', partner: 10, line_items: [line(5)] }),
    ).invoice;
    body(await call('invoicing.invoice.cancel', { cancel_invoice: true, id: cancelled.id }));
    const paid = await issued(10);
    body(await pay({ amount: 10, allocations: [{ invoice_id: paid, amount: 10 }] }));
    for (const id of [draft.id, cancelled.id, paid, a]) {
      const before = await testing.schemaSnapshot(svc.db, svc.schema);
      expect(await call('invoicing.invoice.write_off', { write_off: true, id })).toMatchObject({
        ok: false,
        status: 400,
        code: 'invalid_state',
      });
      expect(await testing.schemaSnapshot(svc.db, svc.schema)).toEqual(before);
    }
  });

  // register_payment weighs what is due without the written-off share; that holds because a write-off
  // always takes the whole rest and leaves the invoice written_off, a status that takes no payment.
  it('refuses register_payment on a written-off invoice and changes nothing', async () => {
    const a = await issued(100);
    body(await call('invoicing.invoice.register_payment', { register_payment: true, id: a, amount: 40, payment_date: '2026-03-02' }));
    body(await call('invoicing.invoice.write_off', { write_off: true, id: a, write_off_date: '2026-03-03' }));
    await refusedUnchanged(
      () => call('invoicing.invoice.register_payment', { register_payment: true, id: a, amount: 10, payment_date: '2026-03-04' }),
      400,
      'invalid_state',
      null,
    );
    expect(await invoice(a)).toMatchObject({ amount_paid: '40.00', written_off_amount: '60.00', invoicestatus: 'written_off' });
  });

  it('register_payment is a payment with one allocation, listed and voidable', async () => {
    const a = await issued(100);
    const reply = body(
      await call('invoicing.invoice.register_payment', { register_payment: true, id: a, amount: 25, payment_date: '2026-03-02' }),
    );
    const got = body(await call('invoicing.payment.get', { action: 'get', payment_id: reply.payment.id }));
    expect(got.payment).toMatchObject({ partner: 10, direction: 'in', amount: 25, allocated: 25, unallocated: 0, currency: 'EUR' });
    expect(got.payment.allocations.map((x: any) => [x.invoice_id, x.amount])).toEqual([[a, 25]]);
    const voided = body(await call('invoicing.payment.void', { action: 'void', payment_id: reply.payment.id }));
    expect(voided.invoices[0]).toMatchObject({ id: a, amount_paid: 0, due_amount: 100 });
  });

  it('stores a registration decided on an unlocked read only while the invoice and the settings are as read', async () => {
    const a = await issued(100);
    const decided = async (amount: string) => {
      const instant = new Date();
      const { state, read } = await readRegistration(svc.db, 1, a, rateWindow('2026-03-03', instant));
      const plan = decidePaymentRegistration(
        state,
        { id: a, amount, payment_date: '2026-03-03', journal: 'Bank' },
        { orgId: 1, operationKey: null, userId: '5', instant },
      );
      return {
        plan,
        store: () =>
          storeAlone(svc.db, { ...storeRegistrationAlone(plan, read), events: [], reply: {} }, undefined, {
            ok: true,
            status: 200,
            body: {},
          }),
      };
    };
    const paymentsOf = async () => (await svc.db('payment_allocations').where({ invoice_id: a })).length;

    // Read at 100 due and decided to pay 70; meanwhile a payment of 40 commits: the stale store writes nothing.
    const stale = await decided('70');
    body(await call('invoicing.invoice.register_payment', { register_payment: true, id: a, amount: 40, payment_date: '2026-03-02' }));
    await expect(stale.store()).rejects.toBeInstanceOf(NotAsDecided);
    expect(await invoice(a)).toMatchObject({ amount_paid: '40.00' });
    expect(await svc.db('payments').where({ id: stale.plan.ids.paymentId })).toEqual([]);
    expect(await svc.db('journal_entries').where({ id: stale.plan.ids.entryId })).toEqual([]);

    // The books' settings change meanwhile (a lock date is set, say): the store writes nothing either.
    const beforeSettings = await decided('10');
    body(await svc.call('invoicing.books.configure', { lock_date: '2026-01-01' }, 1));
    await expect(beforeSettings.store()).rejects.toBeInstanceOf(NotAsDecided);
    expect(await paymentsOf()).toBe(1);

    // Read and stored with nothing in between: the payment, its entry and the invoice paid, at the time it was read.
    const fresh = await decided('60');
    await fresh.store();
    const paid = await invoice(a);
    expect(paid).toMatchObject({ amount_paid: '100.00', invoicestatus: 'paid', version: fresh.plan.invoice.version });
    expect(paid.paid_at).toEqual(fresh.plan.invoice.paid_at);
    expect(paid.updated_at).toEqual(fresh.plan.invoice.updated_at);
    expect(await svc.db('payments').where({ id: fresh.plan.ids.paymentId, journal_entry_id: fresh.plan.ids.entryId })).toHaveLength(1);
    expect(await paymentsOf()).toBe(2);
    await journalBalances();
  });

  it('stores a write-off decided on an unlocked read only while the invoice and the settings are as read', async () => {
    const a = await issued(100);
    const decided = async () => {
      const { load, read } = await readWriteOff(svc.db, 1, a);
      const plan = decideWriteOffPlan(load, { id: a, write_off_date: '2026-03-05', reason: 'gone' }, { orgId: 1, instant: new Date() });
      const alone = { ...storeWriteOffAlone(plan, read), events: [], reply: {} };
      return { plan, store: () => storeAlone(svc.db, alone, undefined, { ok: true, status: 200, body: {} }) };
    };

    // Read at 100 due; meanwhile a payment of 40 commits: the stale write-off of 100 writes nothing.
    const stale = await decided();
    expect(stale.plan.invoice.written_off_amount).toBe('100.00');
    body(await call('invoicing.invoice.register_payment', { register_payment: true, id: a, amount: 40, payment_date: '2026-03-02' }));
    await expect(stale.store()).rejects.toBeInstanceOf(NotAsDecided);
    expect(await invoice(a)).toMatchObject({ invoicestatus: 'open', amount_paid: '40.00', written_off_amount: '0.00' });
    expect(await svc.db('journal_entries').where({ id: stale.plan.entryId })).toEqual([]);

    // The books' settings change meanwhile (a later lock date): nothing is written either.
    const beforeSettings = await decided();
    body(await svc.call('invoicing.books.configure', { lock_date: '2026-01-02' }, 1));
    await expect(beforeSettings.store()).rejects.toBeInstanceOf(NotAsDecided);
    expect((await invoice(a)).invoicestatus).toBe('open');

    // Read and stored with nothing in between: the rest written off, at the time it was read, by its entry.
    const fresh = await decided();
    await fresh.store();
    const stored = await invoice(a);
    expect(stored).toMatchObject({
      invoicestatus: 'written_off',
      written_off_amount: '60.00',
      write_off_reason: 'gone',
      write_off_journal_entry_id: fresh.plan.entryId,
      version: fresh.plan.invoice.version,
    });
    expect([stored.updated_at, stored.written_off_at]).toEqual([fresh.plan.invoice.updated_at, fresh.plan.invoice.updated_at]);
    expect(await svc.db('journal_entries').where({ id: fresh.plan.entryId, invoice_id: a, kind: 'write_off' })).toHaveLength(1);
    await journalBalances();
  });

  it('stores a void decided on an unlocked read only while the payment and every document it settles are as read', async () => {
    const [a, b] = [await issued(100), await issued(100)];
    const p = body(
      await pay({
        amount: 150,
        allocations: [
          { invoice_id: a, amount: 100 },
          { invoice_id: b, amount: 50 },
        ],
      }),
    ).payment;
    const decided = async () => {
      const { state, read } = await readVoid(svc.db, 1, p.id);
      const plan = decideVoid(state, { payment_id: p.id, void_date: '2026-03-20', reason: 'bounced' }, { orgId: 1, instant: new Date() });
      const alone = { ...storeVoidAlone(plan, read), events: [], reply: {} };
      return { plan, store: () => storeAlone(svc.db, alone, undefined, { ok: true, status: 200, body: {} }) };
    };
    const unchanged = async () => {
      expect(await svc.db('payments').where({ id: p.id }).first()).toMatchObject({ status: 'posted' });
      expect((await svc.db('payment_allocations').where({ payment_id: p.id, status: 'active' })).length).toBe(2);
    };

    // A document it settles changes meanwhile (here a payment of its rest): nothing is written.
    const staleDocument = await decided();
    body(await pay({ amount: 50, allocations: [{ invoice_id: b, amount: 50 }] }));
    await expect(staleDocument.store()).rejects.toBeInstanceOf(NotAsDecided);
    await unchanged();
    expect(await svc.db('journal_entries').where({ id: staleDocument.plan.entryId })).toEqual([]);

    // The payment itself changes meanwhile: nothing is written either.
    const stalePayment = await decided();
    await svc.db('payments').where({ id: p.id }).update({ reference: 'touched' });
    await expect(stalePayment.store()).rejects.toBeInstanceOf(NotAsDecided);
    await unchanged();

    // Read and stored with nothing in between: what the plan says is what is stored.
    const fresh = await decided();
    await fresh.store();
    expect(await svc.db('payments').where({ id: p.id }).first()).toMatchObject({
      status: 'voided',
      allocated: '0',
      void_journal_entry_id: fresh.plan.entryId,
      voided_at: fresh.plan.payment.voided_at,
    });
    for (const doc of fresh.plan.documents)
      expect(await invoice(doc.id)).toMatchObject({ amount_paid: doc.amount_paid, invoicestatus: doc.invoicestatus, version: doc.version });
    expect((await invoice(a)).amount_paid).toBe('0.00');
    expect((await invoice(b)).amount_paid).toBe('50.00');
    await journalBalances();
  });

  it('stores a refund decided on an unlocked read only while its payment and the settings are as read', async () => {
    const p = body(await pay({ amount: 100 })).payment;
    const decided = async (amount: string) => {
      const instant = new Date();
      const { state, read } = await readRefund(svc.db, 1, { payment_id: p.id }, rateWindow('2026-03-20', instant));
      const plan = decideRefund(
        state,
        { payment_id: p.id, amount, refund_date: '2026-03-20' },
        { orgId: 1, instant, operationKey: null, userId: '5' },
      );
      const alone = { ...storeRefundAlone(plan, read), events: [], reply: {} };
      return { plan, store: () => storeAlone(svc.db, alone, undefined, { ok: true, status: 200, body: {} }) };
    };
    const refundsOf = async () => (await svc.db('payment_refunds').where({ payment_id: p.id })).length;

    // Read with 100 of credit, decided to refund 70; meanwhile 40 of it is refunded: the stale refund writes nothing.
    const stale = await decided('70');
    body(await call('invoicing.payment.refund', { action: 'refund', payment_id: p.id, amount: 40, refund_date: '2026-03-19' }));
    await expect(stale.store()).rejects.toBeInstanceOf(NotAsDecided);
    expect(await svc.db('payments').where({ id: p.id }).first()).toMatchObject({ refunded: '40.00' });
    expect(await refundsOf()).toBe(1);
    expect(await svc.db('journal_entries').where({ id: stale.plan.entryId })).toEqual([]);

    // Read and stored with nothing in between: the refund, its entry and the payment's total, as decided.
    const fresh = await decided('60');
    await fresh.store();
    expect(await svc.db('payments').where({ id: p.id }).first()).toMatchObject({ refunded: '100.00' });
    expect(await svc.db('payment_refunds').where({ id: fresh.plan.refund.id }).first()).toMatchObject({
      amount: '60',
      journal_entry_id: fresh.plan.entryId,
    });
    expect(await refundsOf()).toBe(2);
    await journalBalances();
  });

  it('stores a payment decided on an unlocked read only while every document it settles is as read', async () => {
    const [a, b] = [await issued(100), await issued(100)];
    const asked = {
      partner: 10,
      amount: '80',
      currency: 'EUR',
      direction: 'in' as const,
      payment_date: '2026-03-03',
      method: undefined,
      reference: undefined,
      journal: undefined,
      allocations: [
        { invoice_id: a, amount: '30' },
        { invoice_id: b, amount: '50' },
      ],
    };
    const decided = async () => {
      const instant = new Date();
      const { state, read } = await readNewPayment(svc.db, 1, asked, rateWindow(asked.payment_date, instant));
      const plan = decideNewPayment(state, asked, { orgId: 1, operationKey: null, userId: '5', instant });
      const write = { ...storeNewPaymentAlone(plan, 1, read), events: [], reply: {} };
      return { plan, store: () => storeAlone(svc.db, write, undefined, { ok: true, status: 200, body: {} }) };
    };

    // Decided on both; meanwhile a payment settles the second only: nothing of the stale one stays, not even on the first.
    const stale = await decided();
    body(await call('invoicing.invoice.register_payment', { register_payment: true, id: b, amount: 10, payment_date: '2026-03-02' }));
    await expect(stale.store()).rejects.toBeInstanceOf(NotAsDecided);
    expect([(await invoice(a)).amount_paid, (await invoice(b)).amount_paid]).toEqual(['0.00', '10.00']);
    expect(await svc.db('payments').where({ id: stale.plan.ids.paymentId })).toEqual([]);

    const fresh = await decided();
    await fresh.store();
    expect([(await invoice(a)).amount_paid, (await invoice(b)).amount_paid]).toEqual(['30.00', '60.00']);
    expect(await svc.db('payment_allocations').where({ payment_id: fresh.plan.ids.paymentId })).toHaveLength(2);
    await journalBalances();
  });

  it('books a redelivered payment once', async () => {
    const a = await issued(100);
    const { first, again, afterFirst, afterAgain } = await testing.deliverTwice(svc, 'invoicing.payment.create', {
      action: 'create',
      partner: 10,
      amount: 60,
      currency: 'EUR',
      direction: 'in',
      allocations: [{ invoice_id: a, amount: 60 }],
    });
    expect(first.ok).toBe(true);
    expect(again).toEqual(first);
    expect(afterAgain).toEqual(afterFirst);
    const twins = await testing.deliverTwins(svc, 'invoicing.payment.allocate', {
      action: 'allocate',
      payment_id: body(await pay({ amount: 40 })).payment.id,
      allocations: [{ invoice_id: a, amount: 40 }],
    });
    expect(twins.again).toEqual(twins.first);
    expect((await invoice(a)).amount_paid).toBe('100.00');
  });

  it('payments racing for one invoice’s whole due settle it once: one allocates, the others are refused and write nothing', async () => {
    const a = await issued(100);
    const replies = await Promise.all(
      Array.from({ length: 4 }, (_, n) => pay({ amount: 100, reference: `RACE-${n}`, allocations: [{ invoice_id: a, amount: 100 }] })),
    );
    const made = replies.filter((r) => r.ok);
    expect(made).toHaveLength(1);
    // Each loser waited for the invoice's lock and found it paid.
    for (const r of replies.filter((x) => !x.ok)) expect(r).toMatchObject({ ok: false, status: 400, code: 'invalid_state' });
    expect(await invoice(a)).toMatchObject({ amount_paid: '100.00', invoicestatus: 'paid' });
    expect(await svc.db('payment_allocations').where({ invoice_id: a })).toHaveLength(1);
    expect(await svc.db('payments').where('reference', 'like', 'RACE-%')).toHaveLength(1);
    await journalBalances();
  });

  it('a payment that waited for a document’s lock clears it at what its entry booked as the lock left it, not as its snapshot saw', async () => {
    await setAccountingCurrency(svc, 3, 'EUR');
    const dollars = await issued(100, { partner: 30, currency: 'USD', exchange_rate: 0.8 }, 3);
    const entry = await svc.db('journal_entries').where({ invoice_id: dollars, kind: 'invoice' }).first();
    const booked = () => svc.db('journal_lines').where({ entry_id: entry.id }).orderBy('id');
    expect((await booked()).map((l) => [l.debit, l.credit])).toEqual([
      ['80.00', '0.00'],
      ['0.00', '80.00'],
    ]);
    // A writer holding the document's lock, whose commit leaves its entry booking 90.00 (as a validation committing meanwhile writes it).
    const writer = await svc.db.transaction();
    await writer('invoices').where({ id: dollars }).update({ updated_at: writer.fn.now() });
    await writer('journal_lines').where({ entry_id: entry.id }).where('debit', '>', 0).update({ debit: '90.00' });
    await writer('journal_lines').where({ entry_id: entry.id }).where('credit', '>', 0).update({ credit: '90.00' });
    const reply = pay(
      { partner: 30, currency: 'USD', exchange_rate: 0.8, amount: 100, allocations: [{ invoice_id: dollars, amount: 100 }] },
      3,
    );
    const waited = await postingWaitsForLock(svc, reply);
    await writer.commit();
    expect(waited).toBe(true);
    const payment = body(await reply).payment;
    const lines = await svc.db('journal_lines').where({ entry_id: payment.journal_entry_id }).orderBy('id');
    // The bank at the payment's 80.00, the receivable cleared at the 90.00 booked, the 10.00 between them a realized loss.
    expect(lines.find((l) => l.account === 'Bank')).toMatchObject({ debit: '80.00', credit: '0.00' });
    expect(lines.find((l) => /Receivable/.test(l.account))).toMatchObject({ debit: '0.00', credit: '90.00' });
    expect((await invoice(dollars)).invoicestatus).toBe('paid');
    await journalBalances();
  });
});
