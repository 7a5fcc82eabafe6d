import * as testing from '@bo/testkit';
import { salesService } from '../src/service';
import { daysFromToday, fakePartners, ok, partnerRecord } from './support';

/**
 * A service killed after its commit and before its ack gets the command again from RabbitMQ. Each
 * write, delivered twice with the same operation key, answers the same reply and changes the
 * schema once. (Conversion, which calls invoicing, is proven in conversion.int.test.ts.)
 */
describe('sales: a redelivered write has no second effect', () => {
  let svc: testing.TestService;
  let catalog: testing.CatalogStub;
  beforeAll(async () => {
    svc = await testing.startTestService(salesService);
    catalog = await testing.startCatalogStub(svc);
    const partners = await fakePartners(svc);
    partners.add(partnerRecord(1, 1, { partnername: 'Acme Corp', currency: 'USD' }));
  });
  afterAll(async () => {
    await catalog?.stop();
    await svc?.stop();
  });

  const line = { product_id: 7, quantity: 2, price: 10, tax_rate: 10, tax_included: false };
  const quotation = () => ({
    action: 'create_quotation',
    partner: 1,
    quotation_type: 'quotation',
    quotation_date: `${daysFromToday(0)}T10:00:00`,
    valid_until: daysFromToday(10),
    line_items: [line],
  });
  const created = async () => ok(await svc.call('sales.quotation.create', quotation())).quotation.id as number;

  it.each([
    ['sales.quotation.create', async () => quotation()],
    ['sales.quotation.add_line', async () => ({ action: 'add_line', quotation_id: await created(), ...line })],
    ['sales.quotation.edit', async () => ({ action: 'edit_quotation', quotation_id: await created(), quotation_status: 'sent' })],
    ['sales.quotation.cancel', async () => ({ action: 'cancel_quotation', quotation_id: await created() })],
  ])('%s', async (operation, payload) => {
    const { first, again, afterFirst, afterAgain } = await testing.deliverTwice(svc, operation, await payload());
    expect(first.ok).toBe(true);
    expect(again).toEqual(first);
    expect(afterAgain).toEqual(afterFirst);
  });

  it('adds one line when the same add_line is delivered twice at once', async () => {
    const id = await created();
    const { first, again } = await testing.deliverTwins(svc, 'sales.quotation.add_line', { action: 'add_line', quotation_id: id, ...line });
    expect(first.ok).toBe(true);
    expect(again).toEqual(first);
    expect(await svc.db('quotation_lines').where({ quotation_id: id })).toHaveLength(2);
  });
});
