import { testing } from '@bo/runtime';
import { body, specLine, startWithFakePartners } from './fixtures';

/**
 * A service killed after its commit and before its ack gets the command again from RabbitMQ. Each
 * write, delivered twice with the same operation key, answers the same reply and changes the
 * schema once: one payment, one journal entry, one number.
 */
describe('invoicing: a redelivered write has no second effect', () => {
  let svc: testing.TestService;
  beforeAll(async () => {
    ({ svc } = await startWithFakePartners([{ org: 1, id: 10, partnername: 'Acme', credit_limit: 0, balance: 0 }], { RECURRING_INTERVAL_MS: '3600000' }));
  });
  afterAll(async () => {
    await svc?.stop();
  });

  const draft = async (extra: Record<string, unknown> = {}) =>
    body(await svc.call('invoicing.invoice.create', { invoicetype: 'invoiceout', partner: 10, line_items: [specLine], ...extra })).invoice.id as number;
  const open = async () => {
    const id = await draft();
    body(await svc.call('invoicing.invoice.validate', { validate_invoice: true, id }));
    return id;
  };
  const contract = async () =>
    draft({ invoicedatetime: '2100-01-31T08:00:00', invoicedue: null, recurring: { enabled: true, frequency: 'monthly', start_date: '2100-01-31' } });

  it.each([
    ['invoicing.invoice.create', async () => ({ invoicetype: 'invoiceout', partner: 10, line_items: [specLine] })],
    ['invoicing.invoice.add_line', async () => ({ invoice_id: await draft(), ...specLine })],
    ['invoicing.invoice.validate', async () => ({ validate_invoice: true, id: await draft() })],
    ['invoicing.invoice.register_payment', async () => ({ register_payment: true, id: await open(), amount: 100 })],
    ['invoicing.invoice.cancel', async () => ({ cancel_invoice: true, id: await draft() })],
    ['invoicing.recurring.pause', async () => ({ pause_recurring: true, id: await contract() })],
    ['invoicing.recurring.cancel', async () => ({ cancel_recurring: true, id: await contract() })],
    ['invoicing.recurring.generate', async () => ({ generate_child_invoice: true, id: await contract() })],
  ])('%s', async (operation, payload) => {
    const { first, again, afterFirst, afterAgain } = await testing.deliverTwice(svc, operation, await payload());
    expect(first.ok).toBe(true);
    expect(again).toEqual(first);
    expect(afterAgain).toEqual(afterFirst);
  });

  it('invoicing.recurring.resume', async () => {
    const id = await contract();
    body(await svc.call('invoicing.recurring.pause', { pause_recurring: true, id }));
    const { first, again, afterFirst, afterAgain } = await testing.deliverTwice(svc, 'invoicing.recurring.resume', { resume_recurring: true, id });
    expect(first.ok).toBe(true);
    expect(again).toEqual(first);
    expect(afterAgain).toEqual(afterFirst);
  });

  it('books one payment when the same payment command is delivered twice at once', async () => {
    const id = await open();
    const { first, again } = await testing.deliverTwins(svc, 'invoicing.invoice.register_payment', { register_payment: true, id, amount: 50 });
    expect(first.ok).toBe(true);
    expect(again).toEqual(first);
    expect(await svc.db('payments').where({ invoice_id: id })).toHaveLength(1);
    expect((await svc.db('invoices').where({ id }).first()).amount_paid).toBe('50.00');
  });
});
