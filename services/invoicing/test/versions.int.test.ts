import * as testing from '@bo/testkit';
import { body, postingWaitsForLock, startWithFakePartners, type FakePartner } from './fixtures';

const partnersTable: FakePartner[] = [{ org: 1, id: 10, partnername: 'Acme', credit_limit: 0, balance: 0, record: { currency: 'EUR' } }];
/** 100.00 net, no tax: totals are round. */
const line = (price: number) => ({ product_id: 7, quantity: 1, price, tax_rate: 0, tax_included: false });

/**
 * An invoice's `version` (migration 017): 1 when made, one more per change of its row, and carried
 * by every event that tells a change of it, so a receiver can order what it is sent.
 */
describe('invoicing service: invoice versions', () => {
  let svc: testing.TestService;
  let events: Awaited<ReturnType<testing.TestService['collect']>>;

  beforeAll(async () => {
    ({ svc } = await startWithFakePartners(partnersTable));
    events = await svc.collect(['invoicing.invoice.*', 'invoicing.payment.*']);
  });
  afterAll(async () => {
    await svc?.stop();
  });

  const call = (operation: string, payload: Record<string, unknown>) => svc.call(operation, { userid: '5', ...payload }, 1);
  const version = async (id: number) => (await svc.db('invoices').where({ id }).first<{ version: number }>('version')).version;
  const draft = async (price = 100) =>
    // Dated before the payments of these tests: dates run forward.
    body(
      await call('invoicing.invoice.create', {
        invoicetype: 'invoiceout',
        partner: 10,
        invoicedatetime: '2026-02-01T09:00:00',
        line_items: [line(price)],
      }),
    ).invoice.id as number;
  /** The data of the one event of `type` that names the invoice (directly or among its allocations), once it has arrived. */
  async function eventOf(type: string, match: (data: Record<string, any>) => boolean): Promise<Record<string, any>> {
    await testing.waitUntil(() => events.some((e) => e.type === type && match(e.data)));
    const found = events.filter((e) => e.type === type && match(e.data));
    expect(found).toHaveLength(1);
    return found[0]!.data as Record<string, any>;
  }
  const ofInvoice = (id: number) => (d: Record<string, any>) => d['invoice_id'] === id;
  const allocating = (paymentId: number) => (d: Record<string, any>) => d['payment_id'] === paymentId;

  it('rises by one per change, from create (numbered in the same transaction) to write-off, and every event carries it', async () => {
    const id = await draft();
    expect(await version(id)).toBe(1);
    expect((await eventOf('invoicing.invoice.created', ofInvoice(id))).version).toBe(1);

    body(await call('invoicing.invoice.add_line', { invoice_id: id, ...line(50) }));
    expect(await version(id)).toBe(2);

    // Validation updates the row more than once in its transaction: one change.
    body(await call('invoicing.invoice.validate', { validate_invoice: true, id }));
    expect(await version(id)).toBe(3);
    expect((await eventOf('invoicing.invoice.validated', ofInvoice(id))).version).toBe(3);

    body(await call('invoicing.invoice.register_payment', { register_payment: true, id, amount: 30, payment_date: '2026-03-01' }));
    expect(await version(id)).toBe(4);
    expect((await eventOf('invoicing.invoice.payment_registered', ofInvoice(id))).version).toBe(4);

    const payment = body(
      await call('invoicing.payment.create', {
        action: 'create',
        partner: 10,
        amount: 40,
        currency: 'EUR',
        direction: 'in',
        payment_date: '2026-03-02',
        allocations: [{ invoice_id: id, amount: 40 }],
      }),
    ).payment.id as number;
    expect(await version(id)).toBe(5);
    const created = await eventOf('invoicing.payment.created', allocating(payment));
    expect(created.allocations.map((a: any) => [a.invoice_id, a.invoice_version])).toEqual([[id, 5]]);

    body(await call('invoicing.payment.void', { action: 'void', payment_id: payment, void_date: '2026-03-03' }));
    expect(await version(id)).toBe(6);
    const voided = await eventOf('invoicing.payment.voided', allocating(payment));
    expect(voided.allocations.map((a: any) => [a.invoice_id, a.invoice_version])).toEqual([[id, 6]]);

    body(await call('invoicing.invoice.write_off', { id, write_off: true, reason: 'gone' }));
    expect(await version(id)).toBe(7);
    expect((await eventOf('invoicing.invoice.written_off', ofInvoice(id))).version).toBe(7);
  });

  it('pays in full in one change: the payment_registered and paid events tell the same version', async () => {
    const id = await draft();
    body(await call('invoicing.invoice.validate', { validate_invoice: true, id }));
    body(await call('invoicing.invoice.register_payment', { register_payment: true, id, amount: 100, payment_date: '2026-03-01' }));
    expect(await version(id)).toBe(3);
    expect((await eventOf('invoicing.invoice.payment_registered', ofInvoice(id))).version).toBe(3);
    expect((await eventOf('invoicing.invoice.paid', ofInvoice(id))).version).toBe(3);
  });

  it('counts a cancellation; a refused change leaves the version as it was', async () => {
    const id = await draft();
    const overpaid = await call('invoicing.invoice.register_payment', {
      register_payment: true,
      id,
      amount: 1,
      payment_date: '2026-03-01',
    });
    expect(overpaid).toMatchObject({ ok: false, status: 400 });
    expect(await version(id)).toBe(1);
    body(await call('invoicing.invoice.cancel', { id, cancel_invoice: true }));
    expect(await version(id)).toBe(2);
    expect((await eventOf('invoicing.invoice.cancelled', ofInvoice(id))).version).toBe(2);
  });

  it('gives concurrent changes distinct, consecutive versions, each with its own event', async () => {
    const id = await draft(1000);
    body(await call('invoicing.invoice.validate', { validate_invoice: true, id }));
    const replies = await Promise.all(
      Array.from({ length: 8 }, () =>
        call('invoicing.invoice.register_payment', { register_payment: true, id, amount: 10, payment_date: '2026-03-01' }),
      ),
    );
    replies.forEach((r) => body(r));
    expect(await version(id)).toBe(10);
    await testing.waitUntil(
      () => events.filter((e) => e.type === 'invoicing.invoice.payment_registered' && e.data.invoice_id === id).length === 8,
    );
    const versions = events
      .filter((e) => e.type === 'invoicing.invoice.payment_registered' && e.data.invoice_id === id)
      .map((e) => e.data.version as number)
      .sort((a, b) => a - b);
    expect(versions).toEqual([3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('a validation that decided on a draft changed before its store commits decides again on the draft as changed', async () => {
    const id = await draft(100);
    // A writer holding the draft's row, whose commit doubles its line (as add_line or an edit of the draft commits it).
    const writer = await svc.db.transaction();
    await writer('invoices').where({ id }).update({ updated_at: writer.fn.now() });
    await writer('invoice_lines').where({ invoice_id: id }).update({ price: 200 });
    const reply = call('invoicing.invoice.validate', { validate_invoice: true, id });
    // The validation read the draft as committed (100), and its store now waits for the writer's lock.
    const waited = await postingWaitsForLock(svc, reply);
    await writer.commit();
    expect(waited).toBe(true);
    const posted = body(await reply).invoice;
    expect(posted.invoicetotal).toBe(200);
    const entry = await svc.db('journal_entries').where({ invoice_id: id, kind: 'invoice' });
    expect(entry).toHaveLength(1);
    const lines = await svc.db('journal_lines').where({ entry_id: entry[0].id });
    expect(lines.reduce((sum, l) => sum + Number(l.debit), 0)).toBe(200);
    expect(await version(id)).toBe(3);
  });

  it('is the database’s: a write naming another version is counted all the same', async () => {
    const id = await draft();
    await svc.db('invoices').where({ id }).update({ version: 42, comments: 'by hand' });
    expect(await version(id)).toBe(2);
  });
});
