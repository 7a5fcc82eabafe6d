import pg from 'pg';
import type { EventRoutes } from '@bo/runtime';
import { reconcileRoutes } from '@bo/webhooks';
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
  /** A reconcile on the service's database and bus (the service's own runs at start and then every minute), on routes given or the bus's. */
  const reconcile = (routes?: EventRoutes) => {
    const webhooks = sys.system.service('webhooks')!;
    return eventually(async () => {
      const routed = await reconcileRoutes(webhooks.db, routes ?? webhooks.bus, 5000);
      if (!routed) throw new Error('another reconcile holds the route lease');
      return routed;
    });
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
    const bus = sys.system.service('webhooks')!.bus;
    // The reconcile reads what is wanted, then waits before setting the routes to it.
    let release = () => undefined as void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let setting = false;
    const reconciled = reconcile({
      addRoutes: (sub, types) => bus.addRoutes(sub, types),
      setRoutes: async (sub, types) => {
        setting = true;
        await held;
        await bus.setRoutes(sub, types);
      },
    });
    await eventually(() => expect(setting).toBe(true));
    // The create routes its types meanwhile, then waits for the reconcile to let the route lease go.
    let reconcileDone = false;
    void reconciled.then(() => (reconcileDone = true));
    const created = endpoint(r.url, ['catalog.*']).then(() => reconcileDone);
    await eventually(async () => expect((await db.query('select count(*)::int as n from webhooks.route_claims')).rows).toEqual([{ n: 1 }]));
    // Set to what it read, without the create's types; it reads again and routes the claim before letting go.
    release();
    expect(await reconciled).toContain('catalog.product.created');
    expect(await created).toBe(true);
    await newProducts(sys, ['Routed Product']);
    await eventually(() => expect(r.hooks.filter((h) => h.payload.type.startsWith('catalog.'))).not.toHaveLength(0));
  });
});
