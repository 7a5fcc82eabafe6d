import { randomUUID } from 'node:crypto';
import { promises as dns } from 'node:dns';
import { AmqpBus, NotAsDecided, storeAlone } from '@bo/runtime';
import { startTestService, type TestService } from '@bo/testkit';
import { webhooksService } from '../src';
import { Dispatcher } from '../src/delivery/dispatcher';
import { deliveryRecord, type DeliveryRow } from '../src/delivery/delivery.record';
import { queuedAlone, redeliveryAlone } from '../src/delivery/delivery.repository';
import { decideRedelivery } from '../src/delivery/decide-redelivery';
import { routedTypes, settlingClaim } from '../src/delivery/routes';
import { decideEndpointUpdate } from '../src/endpoint/decide-endpoint-update';
import { decideNewEndpoint } from '../src/endpoint/decide-new-endpoint';
import { queuedPing } from '../src/endpoint/decide-ping';
import { decideRotation } from '../src/endpoint/decide-rotation';
import { endpointRecord, type EndpointRow } from '../src/endpoint/endpoint.record';
import { endpointChangeAlone, endpointInsertAlone, readEndpoint } from '../src/endpoint/endpoint.repository';

/** The endpoint writes and the deliveries they queue: one statement as a rule, the locked way when that cannot stand. */
describe('webhook endpoints written as one statement', () => {
  let svc: TestService;
  beforeAll(async () => {
    // The deliveries queued here are compared with their replies as stored: no attempt changes them meanwhile
    // (deliveries.int.test.ts has the dispatcher send them).
    jest.spyOn(Dispatcher.prototype, 'wake').mockImplementation(() => undefined);
    svc = await startTestService(webhooksService, {
      WEBHOOKS_SECRET_KEYS: 'k1:the first key of thirty-two characters or more',
      WEBHOOKS_ALLOW_PRIVATE: '1',
    });
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    jest.restoreAllMocks();
  });

  type Reply = { ok: boolean; status: number; code?: string; message?: string; body: Record<string, unknown> };
  let keys = 0;
  const write = async (action: string, payload: Record<string, unknown>, org = 1, operationKey?: string) =>
    (await svc.call(
      `webhooks.${['redeliver'].includes(action) ? 'delivery' : 'endpoint'}.${action}`,
      { userid: 'u1', action, ...payload },
      org,
      operationKey ? { operationKey } : {},
    )) as unknown as Reply;
  const stored = async (id: number) => (await svc.db('endpoints').where({ id }).first()) as EndpointRow | undefined;
  const delivery = async (id: number) => (await svc.db('deliveries').where({ id }).first()) as DeliveryRow | undefined;
  const count = async (table: string) => Number((await svc.db(table).count({ n: '*' }))[0]!.n);
  const create = async (events = ['partners.*']) =>
    (await write('create', { url: 'https://127.0.0.1/in', events })).body.endpoint as { id: number };
  const noAnswer = { ok: true as const, status: 200, body: {} };
  /** A route claim within the margin of its end (routes.ts): no endpoint may commit on it. */
  const lapsingClaim = async (types: string[]) =>
    (
      await svc.db.raw<{ rows: Array<{ id: string }> }>(
        `insert into route_claims (types, expires_at) values (?::jsonb, now() + interval '10 seconds') returning id`,
        [JSON.stringify(types)],
      )
    ).rows[0]!.id;

  it('rotates on an unlocked read, answering the endpoint as stored; one changed since the read writes nothing', async () => {
    const { id } = await create();
    const read = await readEndpoint(svc.db, 1, id);
    await svc.db('endpoints').where({ id }).update({ description: 'changed meanwhile' });
    const rotation = decideRotation(read.row, 'sealed-elsewhere', new Date(), 60_000);
    const alone = { ...endpointChangeAlone(read.row, rotation, read.read), events: [], reply: {} };
    await expect(storeAlone(svc.db, alone, undefined, noAnswer)).rejects.toBeInstanceOf(NotAsDecided);
    expect((await stored(id))?.secret).toBe(read.row.secret);

    const before = (await stored(id))!;
    const rotated = await write('rotate_secret', { endpoint_id: id });
    const after = (await stored(id))!;
    expect(rotated.body.endpoint).toEqual(endpointRecord(after));
    expect(after).toMatchObject({ version: before.version + 1, previous_secret: before.secret });
    expect(after.secret).not.toBe(before.secret);
    expect(rotated.body.secret).toMatch(/^whsec_/);
  });

  it('deletes as one statement; another organization, or an endpoint already gone, is not found and nothing changes', async () => {
    const { id } = await create();
    expect(await write('delete', { endpoint_id: id }, 2)).toMatchObject({ ok: false, code: 'not_found' });
    expect(await stored(id)).toBeDefined();
    expect(await write('delete', { endpoint_id: id })).toMatchObject({
      ok: true,
      body: { message: 'Webhook endpoint deleted successfully' },
    });
    expect(await stored(id)).toBeUndefined();
    expect(await write('delete', { endpoint_id: id })).toMatchObject({ ok: false, code: 'not_found' });
    expect(await write('rotate_secret', { endpoint_id: id })).toMatchObject({ ok: false, code: 'not_found' });
  });

  it('creates as one statement with its route claim settled, answering the endpoint as stored; a claim no longer live writes nothing', async () => {
    const claim = await lapsingClaim(['partners.partner.created']);
    const endpoints = await count('endpoints');
    const row = decideNewEndpoint({ url: 'https://127.0.0.1/in', events: ['partners.*'] }, 1, 'sealed-elsewhere');
    const alone = { ...settlingClaim(endpointInsertAlone(row), claim), events: [], reply: {} };
    await expect(storeAlone(svc.db, alone, undefined, noAnswer)).rejects.toBeInstanceOf(NotAsDecided);
    expect(await count('endpoints')).toBe(endpoints);
    expect(await svc.db('route_claims').where({ id: claim })).toHaveLength(1);

    for (const key of [undefined, `create-${++keys}`]) {
      const made = await write('create', { url: 'https://127.0.0.1/in', events: ['partners.*'], description: 'CRM' }, 1, key);
      const endpoint = made.body.endpoint as { id: number };
      expect(made.body.endpoint).toEqual(endpointRecord((await stored(endpoint.id))!));
      expect(made.body).toMatchObject({ message: 'Webhook endpoint created successfully', secret: expect.stringMatching(/^whsec_/) });
      expect(made.body.endpoint).toMatchObject({ status: 'enabled', version: 1, description: 'CRM', events: ['partners.*'] });
      // The claim it routed with is settled by the same statement.
      expect(await svc.db('route_claims').whereNot({ id: claim })).toEqual([]);
      if (key)
        expect(await write('create', { url: 'https://127.0.0.1/in', events: ['partners.*'], description: 'CRM' }, 1, key)).toEqual(made);
    }
    await svc.db('route_claims').where({ id: claim }).delete();
  });

  it('updates on an unlocked read, answering the endpoint as stored; one changed since the read, or a claim no longer live, writes nothing', async () => {
    const { id } = await create();
    const read = await readEndpoint(svc.db, 1, id);
    await svc.db('endpoints').where({ id }).update({ description: 'changed meanwhile' });
    const changes = decideEndpointUpdate(read.row, { url: 'https://127.0.0.2/in' }, [], new Date());
    const alone = { ...endpointChangeAlone(read.row, changes, read.read), events: [], reply: {} };
    await expect(storeAlone(svc.db, alone, undefined, noAnswer)).rejects.toBeInstanceOf(NotAsDecided);
    expect(await stored(id)).toMatchObject({ url: 'https://127.0.0.1/in', version: read.row.version });

    // The endpoint as read, but the claim its events were routed under lapsing: nothing either.
    const again = await readEndpoint(svc.db, 1, id);
    const claim = await lapsingClaim(['catalog.product.created']);
    const routed = routedTypes(['catalog.*']);
    const events = decideEndpointUpdate(again.row, { events: ['catalog.*'] }, routed, new Date());
    const claimed = { ...settlingClaim(endpointChangeAlone(again.row, events, again.read), claim), events: [], reply: {} };
    await expect(storeAlone(svc.db, claimed, undefined, noAnswer)).rejects.toBeInstanceOf(NotAsDecided);
    expect(await stored(id)).toMatchObject({ events: ['partners.*'], version: again.row.version });
    await svc.db('route_claims').where({ id: claim }).delete();

    const updates: Array<Record<string, unknown>> = [
      { description: '  ERP  ' },
      { events: ['catalog.*', 'partners.partner.created'] },
      { status: 'disabled' },
      { status: 'enabled', url: 'https://127.0.0.3/in' },
      { description: null, status: 'enabled' },
    ];
    for (const [i, update] of updates.entries()) {
      for (const key of [undefined, `update-${++keys}`]) {
        const before = (await stored(id))!;
        const updated = await write('update', { endpoint_id: id, ...update }, 1, key);
        const after = (await stored(id))!;
        expect(updated).toMatchObject({ ok: true, body: { message: 'Webhook endpoint updated successfully' } });
        expect(updated.body.endpoint).toEqual(endpointRecord(after));
        expect(after.version).toBe(before.version + 1);
        if (key) expect(await write('update', { endpoint_id: id, ...update }, 1, key)).toEqual(updated);
        expect(await svc.db('route_claims')).toEqual([]);
        if (i === 2) expect(after).toMatchObject({ status: 'disabled', disabled_reason: 'manual', disabled_at: expect.any(Date) });
      }
    }
    expect(await stored(id)).toMatchObject({ description: null, status: 'enabled', disabled_at: null, url: 'https://127.0.0.3/in' });
  });

  it('routes again an endpoint disabled after the read of an update that enables it, then stores it enabled', async () => {
    const { id } = await create(['catalog.product.created']);
    const routed = jest.spyOn(AmqpBus.prototype, 'addRoutes');
    // The update's key claimed with the endpoint read (enabled: nothing to route); the endpoint is
    // disabled (a 410, say) while the update looks its URL's host up, after that read.
    let lookups = 0;
    const lookup = jest.spyOn(dns.Resolver.prototype, 'resolve4').mockImplementation(async () => {
      if (++lookups === 1)
        await svc.db('endpoints').where({ id }).update({ status: 'disabled', disabled_reason: 'gone', disabled_at: new Date() });
      return ['93.184.215.14'];
    });
    const lookup6 = jest.spyOn(dns.Resolver.prototype, 'resolve6').mockResolvedValue([]);
    try {
      const request = { endpoint_id: id, status: 'enabled', url: 'https://hooks.example.com/in' };
      const updated = await write('update', request, 1, `update-${++keys}`);
      expect(updated).toMatchObject({ ok: true, body: { endpoint: { status: 'enabled', disabled_reason: null, url: request.url } } });
      expect(updated.body.endpoint).toEqual(endpointRecord((await stored(id))!));
      // Gathered again on the endpoint as it then was (disabled): its types routed before it was stored enabled.
      expect(lookups).toBe(2);
      expect(routed.mock.calls.map((c) => c[1])).toEqual([['catalog.product.created']]);
      expect(await svc.db('route_claims')).toEqual([]);
    } finally {
      routed.mockRestore();
      lookup.mockRestore();
      lookup6.mockRestore();
    }
  });

  it('refuses an update of an endpoint of another organization, or gone, changing nothing', async () => {
    const { id } = await create();
    const before = await stored(id);
    expect(await write('update', { endpoint_id: id, description: 'theirs' }, 2)).toMatchObject({ ok: false, code: 'not_found' });
    expect(await write('update', { endpoint_id: id, description: 'theirs' }, 2, `update-${++keys}`)).toMatchObject({
      ok: false,
      code: 'not_found',
    });
    expect(await stored(id)).toEqual(before);
    expect(await write('update', { endpoint_id: 999_999, status: 'enabled' })).toMatchObject({ ok: false, code: 'not_found' });
  });

  it('queues a ping as one statement, answering the delivery as stored; an endpoint disabled since writes nothing', async () => {
    const { id } = await create();
    const ping = queuedPing({ id, org_id: 1 }, randomUUID(), new Date(), undefined);
    await svc.db('endpoints').where({ id }).update({ status: 'disabled', disabled_reason: 'manual', disabled_at: new Date() });
    const deliveries = await count('deliveries');
    await expect(storeAlone(svc.db, { ...queuedAlone(ping), events: [], reply: {} }, undefined, noAnswer)).rejects.toBeInstanceOf(
      NotAsDecided,
    );
    expect(await count('deliveries')).toBe(deliveries);
    // Refused the locked way, as before: disabled, or another organization's.
    expect(await write('test', { endpoint_id: id })).toMatchObject({
      ok: false,
      code: 'invalid_state',
      message: `Webhook endpoint ${id} is disabled; enable it (update with status "enabled") first`,
    });
    expect(await write('test', { endpoint_id: id }, 2)).toMatchObject({ ok: false, code: 'not_found' });
    expect(await count('deliveries')).toBe(deliveries);

    await write('update', { endpoint_id: id, status: 'enabled' });
    for (const key of [undefined, `test-${++keys}`]) {
      const queued = await write('test', { endpoint_id: id }, 1, key);
      const row = (await delivery((queued.body.delivery as { id: number }).id))!;
      expect(queued.body).toEqual({ message: 'Test webhook queued', delivery: deliveryRecord(row) });
      expect(row).toMatchObject({ endpoint_id: id, org_id: 1, event_type: 'webhook.ping', status: 'pending', attempts: 0 });
      expect(row.payload).toMatchObject({ id: row.event_id, type: 'webhook.ping', org_id: 1, data: { endpoint_id: id } });
      if (key) expect(await write('test', { endpoint_id: id }, 1, key)).toEqual(queued);
    }
    expect(await count('deliveries')).toBe(deliveries + 2);
  });

  it('queues deliveries again as one statement, answering how many; an endpoint gone since writes nothing', async () => {
    const { id } = await create();
    const other = await create();
    const ping = async (endpoint = id) => ((await write('test', { endpoint_id: endpoint })).body.delivery as { id: number }).id;
    const [failed, failing, delivered, older] = [await ping(), await ping(), await ping(), await ping()];
    const theirs = await ping(other.id);
    const since = new Date(Date.now() - 60_000);
    await svc.db('deliveries').whereIn('id', [failed, theirs]).update({ status: 'failed', failed_in_a_row: 10, next_attempt_at: null });
    await svc.db('deliveries').where({ id: failing }).update({ failed_in_a_row: 2, lease_id: randomUUID(), leased_until: new Date() });
    await svc.db('deliveries').where({ id: delivered }).update({ status: 'delivered', next_attempt_at: null });
    await svc
      .db('deliveries')
      .where({ id: older })
      .update({ status: 'failed', created_at: new Date(since.getTime() - 1000) });

    // Decided on the endpoint's delivery, the endpoint deleted since: nothing.
    const gone = await create();
    const goneDelivery = await ping(gone.id);
    await svc.db('deliveries').where({ id: goneDelivery }).update({ status: 'failed' });
    const onGone = { ...redeliveryAlone(1, gone.id, decideRedelivery({ delivery_id: goneDelivery })), events: [], reply: {} };
    await svc.db('endpoints').where({ id: gone.id }).update({ deleted_at: new Date() });
    await expect(storeAlone(svc.db, onGone, undefined, noAnswer)).rejects.toBeInstanceOf(NotAsDecided);
    expect(await delivery(goneDelivery)).toMatchObject({ status: 'failed' });
    // Another endpoint's delivery: nothing.
    const notIts = { ...redeliveryAlone(1, id, decideRedelivery({ delivery_id: theirs })), events: [], reply: {} };
    await expect(storeAlone(svc.db, notIts, undefined, noAnswer)).rejects.toBeInstanceOf(NotAsDecided);
    expect(await delivery(theirs)).toMatchObject({ status: 'failed' });

    // Refused as before, changing nothing: neither named, a delivery not its own, another organization, an endpoint gone.
    const snapshot = async () => svc.db('deliveries').orderBy('id');
    const before = await snapshot();
    expect(await write('redeliver', { endpoint_id: id })).toMatchObject({ ok: false, code: 'validation_failed' });
    expect(await write('redeliver', { endpoint_id: id, delivery_id: theirs })).toMatchObject({
      ok: false,
      code: 'not_found',
      message: `Webhook delivery ${theirs} not found`,
    });
    expect(await write('redeliver', { endpoint_id: id, delivery_id: failed }, 2)).toMatchObject({ ok: false, code: 'not_found' });
    expect(await write('redeliver', { endpoint_id: gone.id, delivery_id: goneDelivery })).toMatchObject({ ok: false, code: 'not_found' });
    expect(await snapshot()).toEqual(before);

    const sinceText = since.toISOString().slice(0, 19);
    const all = await write('redeliver', { endpoint_id: id, since: sinceText }, 1, `redeliver-${++keys}`);
    expect(all).toMatchObject({ ok: true, body: { message: '2 webhook deliveries queued again', redelivered: 2 } });
    const again = { status: 'pending', failed_in_a_row: 0, lease_id: null, leased_until: null, next_attempt_at: expect.any(Date) };
    expect(await delivery(failed)).toMatchObject(again);
    expect(await delivery(failing)).toMatchObject(again);
    expect(await delivery(delivered)).toMatchObject({ status: 'delivered' });
    expect(await delivery(older)).toMatchObject({ status: 'failed' });
    expect(await delivery(theirs)).toMatchObject({ status: 'failed' });
    expect(await write('redeliver', { endpoint_id: id, since: sinceText }, 1, `redeliver-${keys}`)).toEqual(all);
    expect(await write('redeliver', { endpoint_id: id, since: sinceText })).toMatchObject({
      body: { message: '0 webhook deliveries queued again', redelivered: 0 },
    });
    expect(await write('redeliver', { endpoint_id: id, delivery_id: delivered })).toMatchObject({
      ok: true,
      body: { message: '1 webhook deliveries queued again', redelivered: 1 },
    });
    expect(await delivery(delivered)).toMatchObject(again);
  });
});
