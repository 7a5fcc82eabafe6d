import { toNumber } from '@bo/kernel';
import { NotAsDecided, storeAlone } from '@bo/runtime';
import * as testing from '@bo/testkit';
import { readAllocation, storeAllocationAlone } from '../src/payment/allocation.repository';
import { decideAllocation, type AllocationRequest } from '../src/payment/decide-allocation';
import { body, startWithFakePartners, type FakePartner } from './fixtures';

// Allocating a partner's credit, decided on an unlocked read and stored as one statement: a store
// whose read went stale (a document or the payment moved meanwhile) writes nothing, the service then
// going the locked way; and what the service answers and publishes is what it stored.
const partnersTable: FakePartner[] = [{ org: 1, id: 10, partnername: 'Acme', credit_limit: 0, balance: 0, record: { currency: 'EUR' } }];
const line = (price: number) => ({ product_id: 7, quantity: 1, price, tax_rate: 0, tax_included: false });
const NOTHING = { ok: true, status: 200, body: {} } as const;
/** An allocation as a client asks for it: amounts as numbers (the service reads them as decimal text). */
type Asked = Omit<AllocationRequest, 'allocations'> & { allocations: Array<{ invoice_id: number; amount: number }> };

describe('invoicing service: allocations as one statement', () => {
  let svc: testing.TestService;
  let events: Awaited<ReturnType<testing.TestService['collect']>>;
  const call = (operation: string, payload: Record<string, unknown>) => svc.call(operation, { userid: '5', ...payload }, 1);

  beforeAll(async () => {
    ({ svc } = await startWithFakePartners(partnersTable));
    events = await svc.collect(['invoicing.payment.allocated']);
  });
  afterAll(async () => {
    await svc?.stop();
  });

  async function issued(price: number, invoicetype = 'invoiceout'): Promise<number> {
    const inv = body(
      await call('invoicing.invoice.create', {
        invoicetype,
        partner: 10,
        invoicedatetime: '2026-02-01T09:00:00',
        line_items: [line(price)],
      }),
    ).invoice;
    body(await call('invoicing.invoice.validate', { validate_invoice: true, id: inv.id }));
    return inv.id as number;
  }
  const paid = async (amount: number): Promise<number> =>
    body(
      await call('invoicing.payment.create', {
        action: 'create',
        partner: 10,
        currency: 'EUR',
        direction: 'in',
        payment_date: '2026-03-01',
        amount,
      }),
    ).payment.id as number;
  const allocate = (req: Asked) => call('invoicing.payment.allocate', { action: 'allocate', ...req });
  const invoice = (id: number) => svc.db('invoices').where({ id }).first();
  /** A store of `req` decided on what an unlocked read finds now. */
  const decided = async (asked: Asked) => {
    const req = { ...asked, allocations: asked.allocations.map((a) => ({ ...a, amount: String(a.amount) })) };
    const { state, read } = await readAllocation(svc.db, 1, req);
    const plan = decideAllocation(state, req, { orgId: 1, instant: new Date(), operationKey: null });
    const alone = { ...storeAllocationAlone(plan, read), events: [], reply: {} };
    return { plan, store: () => storeAlone(svc.db, alone, undefined, NOTHING) };
  };
  const allocationsOf = (where: Record<string, number>) => svc.db('payment_allocations').where(where).orderBy('id');

  it('stores an allocation decided on an unlocked read only while its payment and documents are as read', async () => {
    const [a, b, c] = [await issued(100), await issued(100), await issued(100)];
    const payment = await paid(100);
    const asked = {
      payment_id: payment,
      allocations: [
        { invoice_id: a, amount: 30 },
        { invoice_id: b, amount: 30 },
      ],
    };

    // Read with a and b owing 100 each; meanwhile b is paid 80 by another payment: the stale store writes nothing.
    const stale = await decided(asked);
    body(
      await call('invoicing.payment.create', {
        action: 'create',
        partner: 10,
        currency: 'EUR',
        direction: 'in',
        payment_date: '2026-03-01',
        amount: 80,
        allocations: [{ invoice_id: b, amount: 80 }],
      }),
    );
    await expect(stale.store()).rejects.toBeInstanceOf(NotAsDecided);
    expect(await allocationsOf({ payment_id: payment })).toEqual([]);
    expect(
      await svc.db('journal_entries').whereIn(
        'id',
        stale.plan.allocations.map((x) => x.entry!.id),
      ),
    ).toEqual([]);
    expect(await invoice(a)).toMatchObject({ amount_paid: '0.00' });
    expect(await svc.db('payments').where({ id: payment }).first()).toMatchObject({ allocated: '0.00' });

    // Read, then the payment moves (part of its credit allocated to c): the stale store writes nothing.
    const moved = await decided({ payment_id: payment, allocations: [{ invoice_id: a, amount: 30 }] });
    body(await allocate({ payment_id: payment, allocations: [{ invoice_id: c, amount: 10 }] }));
    await expect(moved.store()).rejects.toBeInstanceOf(NotAsDecided);
    expect((await allocationsOf({ payment_id: payment })).map((x) => x.invoice_id)).toEqual([c]);
    expect(await invoice(a)).toMatchObject({ amount_paid: '0.00' });

    // Read and stored with nothing in between: the allocations, their entries, the documents and the payment, as decided.
    const fresh = await decided({
      payment_id: payment,
      allocations: [
        { invoice_id: a, amount: 30 },
        { invoice_id: b, amount: 20 },
      ],
    });
    await fresh.store();
    const stored = await allocationsOf({ payment_id: payment });
    expect(stored.slice(1).map((x) => [x.id, x.invoice_id, x.amount, x.journal_entry_id, x.seq])).toEqual(
      fresh.plan.allocations.map((x) => [x.row.id, x.row.invoice_id, x.row.amount, x.entry!.id, x.row.seq]),
    );
    expect(await svc.db('payments').where({ id: payment }).first()).toMatchObject({ allocated: '60.00' });
    for (const doc of fresh.plan.documents) {
      expect(await invoice(doc.id)).toMatchObject({
        amount_paid: doc.amount_paid,
        invoicestatus: doc.invoicestatus,
        version: doc.version,
        updated_at: doc.updated_at,
        paid_at: doc.paid_at,
      });
    }
    expect((await invoice(b)).invoicestatus).toBe('paid');
  });

  it('stores a credit note’s allocation decided on an unlocked read only while the note is as read', async () => {
    const [a, b] = [await issued(100), await issued(100)];
    const note = await issued(30, 'creditout');
    const stale = await decided({ credit_note_id: note, allocations: [{ invoice_id: a, amount: 20 }] });
    // Meanwhile 15 of the note goes to b: the note moved, the stale store writes nothing.
    body(await allocate({ credit_note_id: note, allocations: [{ invoice_id: b, amount: 15 }] }));
    await expect(stale.store()).rejects.toBeInstanceOf(NotAsDecided);
    expect(await invoice(a)).toMatchObject({ amount_paid: '0.00' });
    expect(await invoice(note)).toMatchObject({ amount_paid: '15.00' });

    // Through the service, the same allocation is judged on what is there now: 15 left, so 20 is refused.
    expect(await allocate({ credit_note_id: note, allocations: [{ invoice_id: a, amount: 20 }] })).toMatchObject({
      ok: false,
      status: 400,
      code: 'validation_failed',
    });
    const fresh = await decided({ credit_note_id: note, allocations: [{ invoice_id: a, amount: 15 }] });
    await fresh.store();
    expect(await invoice(note)).toMatchObject({
      amount_paid: '30.00',
      invoicestatus: 'paid',
      paid_at: fresh.plan.documents.find((d) => d.id === note)!.paid_at,
    });
  });

  it('answers and publishes an allocation from a payment as stored', async () => {
    const [a, b] = [await issued(100), await issued(50)];
    const payment = await paid(200);
    const reply = body(
      await allocate({
        payment_id: payment,
        allocations: [
          { invoice_id: a, amount: 100 },
          { invoice_id: b, amount: 20 },
        ],
      }),
    );

    const got = body(await call('invoicing.payment.get', { action: 'get', payment_id: payment }));
    expect(reply.payment).toEqual(got.payment);
    expect(reply.allocations).toEqual(got.payment.allocations);
    const rows = await allocationsOf({ payment_id: payment });
    expect(reply.allocations.map((x: { id: number; journal_entry_id: number }) => [x.id, x.journal_entry_id])).toEqual(
      rows.map((r) => [r.id, r.journal_entry_id]),
    );
    const docs = await Promise.all([a, b].map(invoice));
    expect(reply.invoices).toEqual(
      docs.map((d) => ({
        id: d.id,
        invoicenumber: d.invoicenumber,
        invoicetype: d.invoicetype,
        invoicestatus: d.invoicestatus,
        invoicetotal: toNumber(d.invoicetotal),
        amount_paid: toNumber(d.amount_paid),
        due_amount: toNumber(d.invoicetotal) - toNumber(d.amount_paid),
      })),
    );
    expect(docs[0].paid_at).not.toBeNull();

    await testing.waitUntil(() => events.some((e) => e.data.payment_id === payment));
    const event = events.find((e) => e.data.payment_id === payment)!;
    const lines = await svc
      .db('journal_lines')
      .whereIn(
        'entry_id',
        rows.map((r) => r.journal_entry_id),
      )
      .orderBy('id');
    expect(event.data).toEqual({
      partner_id: 10,
      payment_id: payment,
      credit_note_id: null,
      credit_note_number: null,
      currency: 'EUR',
      allocation_date: rows[0].allocation_date,
      allocations: rows.map((r, n) => ({
        allocation_id: r.id,
        invoice_id: r.invoice_id,
        invoicenumber: docs[n].invoicenumber,
        invoicetype: 'invoiceout',
        amount: toNumber(r.amount),
        invoice_version: docs[n].version,
        trade_delta: 0,
      })),
    });
    expect(lines).toHaveLength(4);
  });

  it('answers and publishes an allocation from a credit note as stored', async () => {
    const a = await issued(100);
    const note = await issued(30, 'creditout');
    const reply = body(await allocate({ credit_note_id: note, allocations: [{ invoice_id: a, amount: 30 }] }));
    const [doc, settled] = [await invoice(a), await invoice(note)];
    expect(reply.credit_note).toEqual({
      id: note,
      invoicenumber: settled.invoicenumber,
      invoicetype: 'creditout',
      invoicestatus: settled.invoicestatus,
      invoicetotal: 30,
      amount_paid: toNumber(settled.amount_paid),
      due_amount: 0,
    });
    expect(settled).toMatchObject({ invoicestatus: 'paid', amount_paid: '30.00' });
    expect(reply.invoices).toMatchObject([{ id: a, amount_paid: toNumber(doc.amount_paid), invoicestatus: doc.invoicestatus }]);
    const rows = await allocationsOf({ credit_note_id: note });
    expect(reply.allocations).toMatchObject(rows.map((r) => ({ id: r.id, journal_entry_id: r.journal_entry_id, source: 'credit_note' })));
    await testing.waitUntil(() => events.some((e) => e.data.credit_note_id === note));
    expect(events.find((e) => e.data.credit_note_id === note)!.data).toMatchObject({
      credit_note_number: settled.invoicenumber,
      allocations: [{ allocation_id: rows[0].id, invoice_id: a, invoice_version: doc.version }],
    });
  });
});
