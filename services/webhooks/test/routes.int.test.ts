import { createDb, type EventRoutes, type Knex } from '@bo/runtime';
import { createTestDatabase, eventually, migratedTemplate, serviceMigrations, type TestDatabase } from '@bo/testkit';
import { webhooksService } from '../src';
import { reconcileRoutes, routeBeforeWrite, routedTypes } from '../src/delivery/routes';

/** A gate a test opens: what waits on it goes on then. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open = () => undefined as void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

/**
 * RabbitMQ's side of the routes as a set of bound types, whose calls a test can hold: the order in
 * which a writer and a reconcile route, read and commit is forced, one step at a time.
 */
class Routes implements EventRoutes {
  bound = new Set<string>();
  adds = 0;
  holdSet?: Promise<void>;
  holdAdd?: Promise<void>;
  setCalled = false;

  async addRoutes(_: string, types: readonly string[]): Promise<void> {
    this.adds += 1;
    await this.holdAdd;
    types.forEach((t) => this.bound.add(t));
  }

  async setRoutes(_: string, types: readonly string[]): Promise<void> {
    this.setCalled = true;
    await this.holdSet;
    this.bound = new Set(types);
  }
}

/**
 * The routing protocol of delivery/routes.ts without a transaction around RabbitMQ: a write claims
 * its types, routes them, and goes on only once no reconcile that may have read before its claim
 * can still unroute them; a reconcile routes again what was claimed while it ran.
 */
describe('webhook routes', () => {
  let database: TestDatabase;
  let db: Knex;
  beforeAll(async () => {
    database = await createTestDatabase({ template: await migratedTemplate('webhooks', [serviceMigrations(webhooksService)]) });
    db = createDb(database.url, 'webhooks', 4);
  });
  afterEach(async () => {
    await db.raw('delete from route_claims; update route_lease set holder = null, until = null, broken_until = null');
  });
  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
  });

  const catalog = routedTypes(['catalog.*']);

  it('lets a write go on only after a reconcile that read before its claim routed its types again', async () => {
    const routes = new Routes();
    const set = gate();
    routes.holdSet = set.wait;
    // The reconcile reads what is wanted (nothing) and is held before it sets the routes.
    // Its broker call may wait as long as the test holds it: on a loaded machine the steps below take
    // seconds, and a reconcile whose call timed out would let the write go on, which is another test.
    const reconciled = reconcileRoutes(db, routes, 30_000);
    await eventually(() => expect(routes.setCalled).toBe(true));
    // The write claims and routes its types, then waits for the lease.
    const written = routeBeforeWrite(db, routes, ['catalog.*'], 30_000);
    // What the broker holds when the write goes on: the reconcile's own routing of the claim (its
    // second add) is done by then. The reconcile's promise may settle a moment later (it still
    // clears expired claims after releasing the lease), so its settling is not what is compared.
    let seenWhenDone: { bound: Set<string>; adds: number } | undefined;
    void written.then(() => (seenWhenDone = { bound: new Set(routes.bound), adds: routes.adds }));
    await eventually(async () => {
      expect(await db('route_claims').count({ n: '*' })).toEqual([{ n: 1 }]);
      expect([...routes.bound]).toEqual(catalog);
    });
    // The reconcile sets what it read, unrouting the write's types, then routes the claim again.
    set.open();
    expect(await reconciled).toEqual(catalog);
    expect(await written).toEqual(expect.any(String));
    expect(seenWhenDone).toEqual({ bound: new Set(catalog), adds: 2 });
    expect(routes.adds).toBe(2);
  });

  it('routes again after a reconcile that broke off holding the lease', async () => {
    const routes = new Routes();
    // A reconcile that died half-way: its lease held for a moment more, after it unrouted everything.
    await db('route_lease').update({ holder: db.raw('gen_random_uuid()'), until: db.raw(`now() + interval '1 second'`) });
    const written = routeBeforeWrite(db, routes, ['catalog.*'], 2000);
    await eventually(() => expect([...routes.bound]).toEqual(catalog));
    routes.bound.clear();
    expect(await written).toEqual(expect.any(String));
    expect([...routes.bound]).toEqual(catalog);
    expect(routes.adds).toBe(2);
    // The next reconcile takes the broken lease over.
    expect(await reconcileRoutes(db, routes, 2000)).toEqual(catalog);
  });

  it('holds no connection while RabbitMQ does not answer, and gives up after its timeout with a retryable 503', async () => {
    const routes = new Routes();
    const add = gate();
    routes.holdAdd = add.wait;
    const pool = (db as unknown as { client: { pool: { numUsed(): number } } }).client.pool;
    const started = performance.now();
    const written = routeBeforeWrite(db, routes, ['catalog.*'], 500).catch((err: unknown) => err);
    await eventually(() => expect(routes.adds).toBe(1));
    expect(pool.numUsed()).toBe(0);
    expect(await written).toMatchObject({ status: 503, code: 'service_unavailable', transient: true });
    expect(performance.now() - started).toBeGreaterThanOrEqual(450);
    add.open();
  });

  it('leaves a reconcile out while another holds the lease, and keeps the lease of one that failed until it ends', async () => {
    const routes = new Routes();
    const set = gate();
    routes.holdSet = set.wait;
    const first = reconcileRoutes(db, routes, 300).catch((err: unknown) => err);
    await eventually(() => expect(routes.setCalled).toBe(true));
    expect(await reconcileRoutes(db, new Routes(), 300)).toBeUndefined();
    expect(await first).toMatchObject({ status: 503 });
    expect(await db('route_lease').first('holder')).toEqual({ holder: expect.any(String) });
    set.open();
  });
});
