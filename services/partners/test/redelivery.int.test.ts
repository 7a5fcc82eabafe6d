import { randomUUID } from 'node:crypto';
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

  describe('an edit that is one statement (storeAlone)', () => {
    it('answers the record PostgreSQL wrote, as get answers it and the event carries it', async () => {
      const seen = await svc.collect(['partners.partner.updated']);
      const id = await created('Alone Edit');
      const reply = await svc.call('partners.partner.edit', { action: 'edit', partner_id: id, phone: '+43 1 234', email: '' });
      if (!reply.ok) throw new Error(reply.message);
      const partner = (reply.body as { partner: Record<string, unknown> }).partner;
      expect(partner).toMatchObject({ id, phone: '+43 1 234', email: null, version: 2 });
      const got = await svc.call('partners.partner.get', { partner_id: id });
      expect(got.ok && (got.body as { partner: unknown }).partner).toEqual(partner);
      await testing.eventually(() => expect(seen.filter((e) => (e.data as { id: number }).id === id)).toHaveLength(1));
      expect(seen.find((e) => (e.data as { id: number }).id === id)!.data).toEqual(partner);
    });

    it("refuses a deleted partner and another organization's as not found, changing nothing", async () => {
      const id = await created('Gone Soon');
      expect((await svc.call('partners.partner.delete', { action: 'delete', partner_id: id })).ok).toBe(true);
      const before = await svc.db('partners').where({ id }).first();
      const edit = { action: 'edit', partner_id: id, phone: '1' };
      expect(await svc.call('partners.partner.edit', edit)).toMatchObject({ ok: false, status: 400, code: 'not_found' });
      const live = await created('Not Yours');
      expect(await svc.call('partners.partner.edit', { ...edit, partner_id: live }, 2)).toMatchObject({ ok: false, code: 'not_found' });
      expect(await svc.db('partners').where({ id }).first()).toEqual(before);
      expect((await svc.db('partners').where({ id: live }).first()).version).toBe(1);
    });
  });

  describe('a create that is one statement (storeAlone)', () => {
    const partnersNamed = async (name: string) => Number((await svc.db('partners').where({ partnername: name }).count({ n: '*' }))[0]!.n);

    it('answers five twins sent at once 409 while the first runs, then its reply, with one partner', async () => {
      const meta = { operationKey: randomUUID(), requestId: randomUUID() };
      const body = { action: 'create', partnername: 'Quintuplets', partner_type: 'customer' };
      const send = () => svc.call('partners.partner.create', body, 1, meta);
      const held = (r: Awaited<ReturnType<typeof send>>) => !r.ok && r.status === 409 && r.code === 'idempotency_conflict';
      const first = await Promise.all(Array.from({ length: 5 }, send));
      // A twin that found the key held is sent again, as a client retries: then every answer is the record's.
      const settled = await Promise.all(
        first.map(async (r) =>
          held(r)
            ? testing.eventually(async () => {
                const again = await send();
                expect(held(again)).toBe(false);
                return again;
              })
            : r,
        ),
      );
      const winner = settled.find((r) => r.ok)!;
      expect(winner).toBeDefined();
      for (const reply of settled) expect(reply).toEqual(winner);
      expect(await partnersNamed('Quintuplets')).toBe(1);
    });

    it('answers 409 and writes nothing while another request holds the key by a claim', async () => {
      const key = randomUUID();
      await svc.db.raw(
        `insert into idempotency.operation_keys (org_id, key, operation, request_hash, status, reply, claim, lease_until)
         values (1, ?, 'sales.quotation.convert', 'x', 0, '', ?, now() + interval '1 minute')`,
        [key, randomUUID()],
      );
      const reply = await svc.call('partners.partner.create', { action: 'create', partnername: 'Claimed', partner_type: 'customer' }, 1, {
        operationKey: key,
        requestId: randomUUID(),
      });
      expect(reply).toMatchObject({ ok: false, status: 409, code: 'idempotency_conflict' });
      expect(await partnersNamed('Claimed')).toBe(0);
    });

    it('fills the id it draws into the reply, the record and the event, and nowhere inside a text', async () => {
      const seen = await svc.collect(['partners.partner.created']);
      const token = '"id":-9007199254740991';
      const meta = { operationKey: randomUUID(), requestId: randomUUID() };
      const body = { action: 'create', partnername: 'Drawn Ltd', partner_type: 'customer', notes: token };
      const reply = await svc.call('partners.partner.create', body, 1, meta);
      if (!reply.ok) throw new Error(reply.message);
      const partner = (reply.body as { partner: { id: number; notes: string } }).partner;
      expect(partner.id).toBeGreaterThan(0);
      expect(partner.notes).toBe(token);
      const got = await svc.call('partners.partner.get', { partner_id: partner.id });
      expect(got.ok && (got.body as { partner: unknown }).partner).toEqual(partner);
      expect(await svc.call('partners.partner.create', body, 1, meta)).toEqual(reply);
      await testing.eventually(() => expect(seen.filter((e) => (e.data as { id: number }).id === partner.id)).toHaveLength(1));
      expect(seen.find((e) => (e.data as { id: number }).id === partner.id)!.data).toEqual(partner);
    });
  });
});
