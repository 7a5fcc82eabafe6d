import { formatDate } from '@bo/kernel';
import { invoicingSuite, ok } from '../support/invoicing';
import type { ApiResponse } from '../support/system';

/**
 * The lock date through the gateway (docs/invoicing.md "Lock date"): set on the organization profile,
 * invoicing has it once the profile answers (docs/invoicing.md "The books' settings"); from then on every posting dated on or before it is
 * refused, naming its date field and the lock date, and changes nothing; the same operation dated
 * after it goes through, and clearing the lock opens the books again.
 */
describe('the lock date, end to end', () => {
  const suite = invoicingSuite('Audit');
  const { post, payments } = suite;
  let customer: number;

  beforeAll(async () => {
    customer = (
      await ok(post('/crm/editpatner', { action: 'create', partnername: 'Locked Ltd', partner_type: 'customer', currency: 'EUR' }))
    ).body.partner.id;
  });

  const invoicing = (body: Record<string, unknown>) => post('/invoicing/invoice/new', body);
  async function draft(date: string, type = 'invoiceout', price = 100): Promise<number> {
    const created = await ok(
      invoicing({
        invoicetype: type,
        partner: customer,
        invoicedatetime: `${date}T09:00:00`,
        line_items: [{ product_id: suite.product, quantity: 1, price, tax_rate: 0, tax_included: false }],
      }),
    );
    return created.body.invoice.id;
  }
  async function issued(date: string, type = 'invoiceout', price = 100): Promise<number> {
    const id = await draft(date, type, price);
    await ok(invoicing({ validate_invoice: true, id }));
    return id;
  }
  /** Sets the lock date on the profile, checks invoicing's books have it, and lets the profile's event land before the next snapshot. */
  async function lockBooks(lockDate: string | null): Promise<void> {
    await ok(post('/organization/setprofile', { lock_date: lockDate }));
    await suite.sys.eventsSettled();
    await suite.settingsReach((row) => expect(formatDate(row?.lock_date ?? null)).toBe(lockDate));
  }
  /** A refusal naming `field` and the lock date, proven to change nothing in invoicing. */
  async function refusedUnchanged(send: () => Promise<ApiResponse>, field: string, lockDate = '2026-01-31') {
    await suite.unchangedBy(send, (r) => {
      expect([r.statusCode, r.body.code, r.body.errors?.map((e: { field: string }) => e.field)]).toEqual([
        400,
        'validation_failed',
        [field],
      ]);
      expect(r.body.message).toContain(`locked up to ${lockDate}`);
    });
  }

  it('keeps the lock date on the profile, clearable, and refuses an unreal one by name', async () => {
    const set = await ok(post('/organization/setprofile', { lock_date: '2025-06-30' }));
    expect(set.body.organization.lock_date).toBe('2025-06-30');
    const bad = await post('/organization/setprofile', { lock_date: '2025-02-30' });
    expect([bad.statusCode, bad.body.errors?.map((e: { field: string }) => e.field)]).toEqual([400, ['lock_date']]);
    const cleared = await ok(post('/organization/setprofile', { lock_date: null }));
    expect(cleared.body.organization.lock_date).toBeNull();
    await suite.settingsReach((row) => expect(row?.lock_date ?? null).toBeNull());
  });

  it('refuses a validation, payment, allocation, refund, write-off and void dated on or before it, changing nothing', async () => {
    // January's books: an invoice partly paid, a draft of January, a credit note with credit left.
    const january = await issued('2026-01-10', 'invoiceout', 100);
    const owing = await issued('2026-01-11', 'invoiceout', 80);
    const paid = (await ok(invoicing({ register_payment: true, id: january, amount: 40, payment_date: '2026-01-15' }))).body.payment;
    const lateDraft = await draft('2026-01-20');
    const note = await issued('2026-01-12', 'creditout', 10);
    await lockBooks('2026-01-31');

    await refusedUnchanged(() => invoicing({ validate_invoice: true, id: lateDraft }), 'lock_date');
    await refusedUnchanged(
      () => invoicing({ register_payment: true, id: january, amount: 10, payment_date: '2026-01-31' }),
      'payment_date',
    );
    await refusedUnchanged(
      () =>
        payments({
          action: 'create',
          partner: customer,
          amount: 20,
          currency: 'EUR',
          direction: 'in',
          payment_date: '2026-01-20',
          allocations: [{ invoice_id: owing, amount: 20 }],
        }),
      'payment_date',
    );
    // A payment of February, unallocated: its allocation and refund may not be dated in January.
    const february = (
      await ok(payments({ action: 'create', partner: customer, amount: 30, currency: 'EUR', direction: 'in', payment_date: '2026-02-03' }))
    ).body.payment;
    await refusedUnchanged(
      () =>
        payments({
          action: 'allocate',
          payment_id: february.id,
          allocation_date: '2026-01-31',
          allocations: [{ invoice_id: owing, amount: 5 }],
        }),
      'allocation_date',
    );
    await refusedUnchanged(
      () =>
        payments({
          action: 'allocate',
          credit_note_id: note,
          allocation_date: '2026-01-30',
          allocations: [{ invoice_id: owing, amount: 5 }],
        }),
      'allocation_date',
    );
    await refusedUnchanged(
      () => payments({ action: 'refund', payment_id: february.id, amount: 5, refund_date: '2026-01-02' }),
      'refund_date',
    );
    await refusedUnchanged(() => payments({ action: 'refund', credit_note_id: note, amount: 5, refund_date: '2026-01-31' }), 'refund_date');
    await refusedUnchanged(() => payments({ action: 'void', payment_id: paid.id, void_date: '2026-01-31' }), 'void_date');
    await refusedUnchanged(() => invoicing({ write_off: true, id: owing, write_off_date: '2026-01-25' }), 'write_off_date');

    // Corrections go through dated after the lock: the void's reversal, the allocation, the write-off.
    const voided = await ok(payments({ action: 'void', payment_id: paid.id, void_date: '2026-02-01' }));
    expect(voided.body.payment.status).toBe('voided');
    await ok(
      payments({
        action: 'allocate',
        payment_id: february.id,
        allocation_date: '2026-02-04',
        allocations: [{ invoice_id: owing, amount: 5 }],
      }),
    );
    await ok(payments({ action: 'refund', credit_note_id: note, amount: 5, refund_date: '2026-02-05' }));
    const written = await ok(invoicing({ write_off: true, id: owing, write_off_date: '2026-02-06' }));
    expect(written.body.invoice.invoicestatus).toBe('written_off');
    const entries = await suite
      .invoicingDb('journal_entries')
      .where({ org_id: 1 })
      .where('journaldate', '<=', '2026-01-31')
      .count('* as n')
      .first();
    // Only what was posted before the lock is dated in January: two invoices, the credit note, the first payment.
    expect(Number(entries?.n)).toBe(4);

    // A February invoice validates; clearing the lock opens January again.
    await issued('2026-02-02');
    await lockBooks(null);
    await ok(invoicing({ validate_invoice: true, id: lateDraft }));
  });

  it('judges a posting against the lock date once invoicing has it: a payment right after the lock is refused', async () => {
    const invoice = await issued('2026-03-02');
    // The lock is set, then the payment arrives (one-ledger-books.e2e.test.ts: with the profile's event held back).
    await lockBooks('2026-03-31');
    await refusedUnchanged(
      () => invoicing({ register_payment: true, id: invoice, amount: 100, payment_date: '2026-03-31' }),
      'payment_date',
      '2026-03-31',
    );
    await ok(invoicing({ register_payment: true, id: invoice, amount: 100, payment_date: '2026-04-01' }));
    await lockBooks(null);
  });
});
