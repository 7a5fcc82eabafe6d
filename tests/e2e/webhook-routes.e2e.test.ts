import pg from 'pg';
import { reconcileRoutes, routesLockSql } from '@bo/webhooks';
import { newProducts } from '../support/catalog';
import { eventually, startTestSystem, type TestSystem } from '../support/system';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * Which events reach the webhooks consumer (docs/webhooks.md, "What it costs"): only the types some
 * enabled endpoint subscribes to, routed before an endpoint commits, so none published once it is
 * visible is missed; a reconcile unroutes what no endpoint wants any more. A fresh system: no endpoint
 * exists until a test makes one. Its own reconcile ran at start and next runs after a minute: the
 * tests run the reconciles they need themselves, on the service's database and bus.
 */
describe('webhook routes', () => {
  let sys: TestSystem;
  let db: pg.Client;
  const receivers: WebhookReceiver[] = [];
  const receiver = async () => {
    const r = await new WebhookReceiver().start();
    receivers.push(r);
    return r;
  };

  beforeAll(async () => {
    sys = await startTestSystem({
      env: { WEBHOOKS_ALLOW_HTTP: '1', WEBHOOKS_ALLOW_PRIVATE: '1', WEBHOOKS_POLL_MS: '100' },
    });
    db = new pg.Client({ connectionString: sys.databaseUrl });
    await db.connect();
  }, 60_000);
  afterAll(async () => {
    for (const r of receivers) await r.stop();
    await db?.end();
    await sys?.stop();
  });

  const endpoint = async (url: string, events: string[]) =>
    (await sys.client.webhooks.endpoint.create({ org_id: '1', userid: 'u1', url, events })).endpoint;
  const partner = async (name: string) =>
    (await sys.client.partners.partner.create({ org_id: '1', userid: 'u1', partnername: name, partner_type: 'customer' })).partner;
  /** The events of these types the webhooks consumer took (its inbox rows). */
  const taken = async (type: string) =>
    Number(
      (
        await db.query<{ n: string }>(`select count(*) as n from webhooks.inbox where consumer = 'webhooks.deliveries' and type = $1`, [
          type,
        ])
      ).rows[0]!.n,
    );
  const waiting = async () =>
    Number((await db.query<{ n: string }>(`select count(*) as n from pg_locks where locktype = 'advisory' and not granted`)).rows[0]!.n);

  const reconcile = () => {
    const webhooks = sys.system.service('webhooks')!;
    return reconcileRoutes(webhooks.db, webhooks.bus);
  };
  /** Takes the routes lock (delivery/routes.ts) on a connection of the test's own, until released. */
  const holdRoutesLock = async (mode: 'shared' | 'exclusive') => {
    const lock = new pg.Client({ connectionString: sys.databaseUrl });
    await lock.connect();
    await lock.query('begin');
    await lock.query('set local search_path to webhooks');
    await lock.query(routesLockSql(mode));
    return {
      async release() {
        await lock.query('commit');
        await lock.end();
      },
    };
  };

  it('keeps every event from the webhooks consumer while no endpoint exists, and routes the very next one once one is created', async () => {
    await partner('Nobody Listens');
    await sys.eventsSettled();
    const r = await receiver();
    await endpoint(r.url, ['partners.partner.created']);
    const heard = await partner('Heard At Once');
    await eventually(() => expect(r.ofType('partners.partner.created').map((h) => h.payload.data['id'])).toEqual([heard.id]));
    // The first one was published before: had it been routed, it would have been taken by now.
    expect(await taken('partners.partner.created')).toBe(1);
    expect(await taken('partners.partner.updated')).toBe(0);
  });

  it('unroutes the types of a disabled endpoint at the next reconcile', async () => {
    const r = await receiver();
    const e = await endpoint(r.url, ['partners.partner.updated']);
    const p = await partner('Edited');
    await sys.client.partners.partner.edit({ org_id: '1', userid: 'u1', partner_id: p.id, notes: 'heard' });
    await eventually(() => expect(r.ofType('partners.partner.updated')).toHaveLength(1));
    await sys.client.webhooks.endpoint.update({ org_id: '1', userid: 'u1', endpoint_id: e.id, status: 'disabled' });
    expect(await reconcile()).not.toContain('partners.partner.updated');
    const before = await taken('partners.partner.updated');
    await sys.client.partners.partner.edit({ org_id: '1', userid: 'u1', partner_id: p.id, notes: 'unheard' });
    await sys.eventsSettled();
    // A marker routed after it: once it is taken, the edit before it would have been too.
    const marker = await receiver();
    await endpoint(marker.url, ['partners.partner.deleted']);
    await sys.client.partners.partner.delete({ org_id: '1', userid: 'u1', partner_id: p.id });
    await eventually(() => expect(marker.ofType('partners.partner.deleted')).toHaveLength(1));
    expect(await taken('partners.partner.updated')).toBe(before);

    // Enabled again: routed again before the update commits.
    await sys.client.webhooks.endpoint.update({ org_id: '1', userid: 'u1', endpoint_id: e.id, status: 'enabled' });
    const q = await partner('Edited Again');
    await sys.client.partners.partner.edit({ org_id: '1', userid: 'u1', partner_id: q.id, notes: 'heard again' });
    await eventually(() => expect(r.ofType('partners.partner.updated')).toHaveLength(2));
  });

  it('ends with the route bound when a reconcile and an endpoint create interleave', async () => {
    const r = await receiver();
    let created: Promise<unknown> | undefined;
    let reconciled: Promise<string[]> | undefined;
    const lock = await holdRoutesLock('exclusive');
    try {
      // A reconcile queues behind the lock first, then the create behind both: once released, the
      // reconcile reads the endpoints without the new one, and the create routes after it.
      reconciled = reconcile();
      await eventually(async () => expect(await waiting()).toBe(1));
      created = endpoint(r.url, ['catalog.*']);
      await eventually(async () => expect(await waiting()).toBe(2));
    } finally {
      await lock.release();
    }
    expect(await reconciled).not.toContain('catalog.product.created');
    await created;
    await newProducts(sys, ['Routed Product']);
    await eventually(() => expect(r.hooks.filter((h) => h.payload.type.startsWith('catalog.'))).not.toHaveLength(0));
  });
});
