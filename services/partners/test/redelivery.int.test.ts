import * as testing from '@bo/testkit';
import { partnersService } from '../src/service';
import { fakeDocumentServices } from './fake-documents';

/**
 * A service killed after its commit and before its ack gets the command again from RabbitMQ. Each
 * write, delivered twice with the same operation key, answers the same reply and changes the
 * schema once.
 */
describe('partners: a redelivered write has no second effect', () => {
  let svc: testing.TestService;
  beforeAll(async () => {
    svc = await testing.startTestService(partnersService);
    // A delete asks sales and invoicing for open documents: these answer none.
    await fakeDocumentServices(svc);
  });
  afterAll(async () => {
    await svc?.stop();
  });

  const created = async (name: string) => {
    const r = await svc.call('partners.partner.create', { action: 'create', partnername: name, partner_type: 'customer' });
    if (!r.ok) throw new Error(r.message);
    return (r.body as { partner: { id: number } }).partner.id;
  };

  it.each([
    ['partners.partner.create', async () => ({ action: 'create', partnername: 'Once Ltd', partner_type: 'customer', credit_limit: 100 })],
    ['partners.partner.edit', async () => ({ action: 'edit', partner_id: await created('Edit Me'), phone: '555-0101' })],
    ['partners.partner.delete', async () => ({ action: 'delete', partner_id: await created('Delete Me') })],
  ])('%s', async (operation, payload) => {
    const { first, again, afterFirst, afterAgain } = await testing.deliverTwice(svc, operation, await payload());
    expect(first.ok).toBe(true);
    expect(again).toEqual(first);
    expect(afterAgain).toEqual(afterFirst);
  });

  it('answers twins racing each other with one effect', async () => {
    const before = await svc.db('partners').count({ n: '*' });
    const { first, again } = await testing.deliverTwins(svc, 'partners.partner.create', {
      action: 'create',
      partnername: 'Twins',
      partner_type: 'vendor',
    });
    expect(first.ok).toBe(true);
    expect(again).toEqual(first);
    expect(Number((await svc.db('partners').count({ n: '*' }))[0]!.n)).toBe(Number(before[0]!.n) + 1);
  });

  it('answers a refusal the same way again, and refuses the key with another body', async () => {
    const missing = { action: 'delete', partner_id: 999999 };
    const { first, again } = await testing.deliverTwice(svc, 'partners.partner.delete', missing);
    expect(first).toMatchObject({ ok: false, status: 400, code: 'not_found' });
    expect(again).toEqual(first);
    const meta = { operationKey: 'reused-key', requestId: 'r1' };
    expect((await svc.call('partners.partner.create', { action: 'create', partnername: 'A', partner_type: 'customer' }, 1, meta)).ok).toBe(
      true,
    );
    expect(
      await svc.call('partners.partner.create', { action: 'create', partnername: 'B', partner_type: 'customer' }, 1, meta),
    ).toMatchObject({ ok: false, status: 422, code: 'idempotency_key_reused' });
    // Keys belong to an organization: another may use the same one.
    expect((await svc.call('partners.partner.create', { action: 'create', partnername: 'B', partner_type: 'customer' }, 2, meta)).ok).toBe(
      true,
    );
  });
});
