import type * as testing from '@bo/testkit';
import { body, specLine, startWithFakePartners } from './fixtures';

/** Every malformed request is a 400 naming the field, and nothing changes. */
describe('invoicing service: bad input', () => {
  let svc: testing.TestService;
  let draftId: number;
  let openId: number;

  beforeAll(async () => {
    ({ svc } = await startWithFakePartners([{ org: 1, id: 10, partnername: 'Acme', credit_limit: 0, balance: 0 }]));
    draftId = body(await create({ line_items: [specLine] })).invoice.id;
    openId = body(await create({ line_items: [specLine] })).invoice.id;
    body(await svc.call('invoicing.invoice.validate', { validate_invoice: true, id: openId }, 1));
  });
  afterAll(async () => {
    await svc?.stop();
  });

  function create(payload: Record<string, unknown>) {
    return svc.call('invoicing.invoice.create', { invoicetype: 'invoiceout', partner: 10, ...payload }, 1);
  }
  /** Everything a refused call could have touched. */
  async function snapshot() {
    const [invoices, lines, payments, entries] = await Promise.all([
      svc
        .db('invoices')
        .orderBy('id')
        .select('id', 'invoicestatus', 'subtotal', 'tax_amount', 'invoicetotal', 'amount_paid', 'recurring_status'),
      svc.db('invoice_lines').orderBy('id').select('id', 'invoice_id', 'total'),
      svc.db('payments').orderBy('id').select('id'),
      svc.db('journal_entries').orderBy('id').select('id'),
    ]);
    return { invoices, lines, payments, entries };
  }
  async function expectRefused(operation: string, payload: Record<string, unknown>, field: string) {
    const before = await snapshot();
    const reply = await svc.call(operation, payload, 1);
    expect(reply).toMatchObject({ ok: false, status: 400, code: 'validation_failed' });
    if (reply.ok) return '';
    expect(reply.errors?.map((e) => e.field)).toContain(field);
    // The spec fixes the recurring message word for word, so only the field's own name is asked for.
    expect(reply.message).toContain(field.split('.').pop());
    expect(await snapshot()).toEqual(before);
    return reply.message;
  }

  const createCases: Array<[string, Record<string, unknown>, string]> = [
    ['a missing type', { invoicetype: undefined }, 'invoicetype'],
    ['an unknown type', { invoicetype: 'invoice' }, 'invoicetype'],
    ['a missing partner', { partner: undefined }, 'partner'],
    ['a partner id that is no integer', { partner: 'abc' }, 'partner'],
    ['a partner id out of range', { partner: 99999999999 }, 'partner'],
    ['a status that cannot be created', { invoicestatus: 'open' }, 'invoicestatus'],
    ['an impossible invoice date', { invoicedatetime: '2025-02-30T00:00:00' }, 'invoicedatetime'],
    ['a due date in another format', { invoicedue: '31/03/2025' }, 'invoicedue'],
    ['a number too long', { invoicenumber: 'X'.repeat(51) }, 'invoicenumber'],
    ['comments too long', { comments: 'x'.repeat(5001) }, 'comments'],
    ['a text field of the wrong type', { invoiceterms: 30 }, 'invoiceterms'],
    ['a line without quantity', { line_items: [{ ...specLine, quantity: undefined }] }, 'line_items.0.quantity'],
    ['a zero quantity', { line_items: [{ ...specLine, quantity: 0 }] }, 'line_items.0.quantity'],
    ['a negative price', { line_items: [specLine, { ...specLine, price: -1 }] }, 'line_items.1.price'],
    ['a tax rate above 100', { line_items: [{ ...specLine, tax_rate: 101 }] }, 'line_items.0.tax_rate'],
    ['a price with 5 decimals', { line_items: [{ ...specLine, price: '1.00001' }] }, 'line_items.0.price'],
    ['tax_included missing', { line_items: [{ ...specLine, tax_included: undefined }] }, 'line_items.0.tax_included'],
    ['a quantity too large', { line_items: [{ ...specLine, quantity: 1e10 }] }, 'line_items.0.quantity'],
    // Quantity and price each fit; their product does not.
    [
      'a line total too large to book',
      { line_items: [specLine, { ...specLine, quantity: 1000000, price: 1000000 }] },
      'line_items.1.quantity',
    ],
    ['an unknown frequency', { recurring: { enabled: true, frequency: 'hourly' } }, 'recurring.frequency'],
    [
      'a negative occurrences count',
      { recurring: { enabled: true, frequency: 'monthly', occurrences_count: -1 } },
      'recurring.occurrences_count',
    ],
    [
      'a recurring start date that is no date',
      { recurring: { enabled: true, frequency: 'monthly', start_date: '2025-04-31' } },
      'recurring.start_date',
    ],
    [
      'a recurring start date over a year in the past',
      { recurring: { enabled: true, frequency: 'daily', start_date: '1925-01-01' } },
      'recurring.start_date',
    ],
    ['recurring without a frequency', { recurring: { enabled: true } }, 'recurring.frequency'],
    ['recurring with an empty frequency', { recurring: { enabled: true, frequency: '' } }, 'recurring.frequency'],
  ];
  it.each(createCases)('refuses a create with %s', async (_name, payload, field) => {
    await expectRefused('invoicing.invoice.create', { invoicetype: 'invoiceout', partner: 10, ...payload }, field);
  });

  it('refuses a line added with a total too large to book, or with bad fields', async () => {
    const huge = { invoice_id: draftId, ...specLine, quantity: 1000000, price: 1000000 };
    expect(await expectRefused('invoicing.invoice.add_line', huge, 'quantity')).toBe(
      'quantity x price gives a line total of 1035000000000.00; a line total must be less than 1000000000000',
    );
    await expectRefused('invoicing.invoice.add_line', { ...specLine, invoice_id: 'x' }, 'invoice_id');
    await expectRefused('invoicing.invoice.add_line', { ...specLine, invoice_id: draftId, discount: 100.5 }, 'discount');
    await expectRefused('invoicing.invoice.add_line', { ...specLine, invoice_id: draftId, product_id: '' }, 'product_id');
  });

  it('refuses payments with a bad amount, date or journal', async () => {
    const pay = { register_payment: true, id: openId, amount: 10 };
    await expectRefused('invoicing.invoice.register_payment', { ...pay, amount: 0 }, 'amount');
    await expectRefused('invoicing.invoice.register_payment', { ...pay, amount: -5 }, 'amount');
    await expectRefused('invoicing.invoice.register_payment', { ...pay, amount: '1.001' }, 'amount');
    await expectRefused('invoicing.invoice.register_payment', { ...pay, amount: undefined }, 'amount');
    await expectRefused('invoicing.invoice.register_payment', { ...pay, payment_date: '2025-13-01' }, 'payment_date');
    await expectRefused('invoicing.invoice.register_payment', { ...pay, journal: 'J'.repeat(101) }, 'journal');
    await expectRefused('invoicing.invoice.register_payment', { ...pay, id: undefined }, 'id');
  });

  it('refuses validate, cancel and the recurring operations without a proper id', async () => {
    await expectRefused('invoicing.invoice.validate', { validate_invoice: true, id: '1.5' }, 'id');
    await expectRefused(
      'invoicing.invoice.validate',
      { validate_invoice: true, id: openId, override_credit_limit: 'yes' },
      'override_credit_limit',
    );
    await expectRefused('invoicing.invoice.cancel', { cancel_invoice: true }, 'id');
    await expectRefused(
      'invoicing.recurring.cancel',
      { cancel_recurring: true, id: draftId, cancellation_reason: 'r'.repeat(2001) },
      'cancellation_reason',
    );
    await expectRefused('invoicing.recurring.pause', { pause_recurring: true, id: -1 }, 'id');
  });

  const listCases: Array<[string, Record<string, unknown>, string]> = [
    ['a partner id out of range', { partner_ids: ['99999999999'] }, 'partner_ids.0'],
    ['a partner id that is no number', { partner_ids: ['10', 'acme'] }, 'partner_ids.1'],
    ['partner_ids that are no array', { partner_ids: '10' }, 'partner_ids'],
    ['an unknown status', { status_filter: 'late' }, 'status_filter'],
    ['an unknown sort', { sort_by: 'amount' }, 'sort_by'],
    ['an unknown order', { sort_order: 'up' }, 'sort_order'],
    ['a page size above 100', { page_size: 101 }, 'page_size'],
    ['page 0', { page_number: 0 }, 'page_number'],
    ['a bad date', { date_from: '2025-1-1' }, 'date_from'],
    ['dates the wrong way round', { date_from: '2025-03-01', date_to: '2025-01-01' }, 'date_from'],
    ['an amount that is no number', { amount_min: 'ten' }, 'amount_min'],
    ['amounts the wrong way round', { amount_min: '10.5', amount_max: '9.99' }, 'amount_min'],
    ['a search key too long', { search_key: 's'.repeat(201) }, 'search_key'],
  ];
  it.each(listCases)('refuses a list with %s', async (_name, payload, field) => {
    await expectRefused('invoicing.invoice.list', payload, field);
  });

  it('accepts equal bounds and ids as strings or numbers in a list', async () => {
    const listed = body(await svc.call('invoicing.invoice.list', { partner_ids: ['10', 10], amount_min: '258.75', amount_max: 258.75 }, 1));
    expect(listed.invoices.map((i: { id: number }) => i.id).sort()).toEqual([draftId, openId].sort());
  });
});
