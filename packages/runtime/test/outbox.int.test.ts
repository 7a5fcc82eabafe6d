import { anyEvent } from './any-event';
import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '@bo/contracts';
import type { Bus } from '../src/bus/types';
import { AmqpBus } from '../src/bus/amqp';
import { createDb, migrate, type Knex } from '../src/db';
import { runtimeMigrations } from '../src/runtime-migrations';
import { createLogger } from '../src/logger';
import { OPERATION_KEYS, recordReply } from '../src/idempotency';
import { OutboxRelay, recordEvent, storeAtOnce, storeWithCommit } from '../src/outbox';
import { inTransaction } from '../src/transaction';
import { createTestDatabase, testAmqpUrl, uniqueName, type TestDatabase, waitUntil } from '@bo/testkit';

const log = createLogger('test', 'silent');

describe('outbox relay', () => {
  let database: TestDatabase;
  let db: Knex;
  let bus: AmqpBus;
  let received: EventEnvelope[];
  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(database.url, 'svc', 4);
    await migrate(db, 'svc', runtimeMigrations);
    bus = new AmqpBus({ url: await testAmqpUrl(), prefix: uniqueName('ob'), log });
    await bus.connect();
    received = [];
    await bus.subscribe({ name: 'observer', events: ['#'], handler: async (e) => void received.push(e) });
  });
  afterAll(async () => {
    await bus.close();
    await bus.destroyTopology();
    await db.destroy();
    await database.drop();
  });

  it('publishes only events whose transaction committed, in order, and marks them sent', async () => {
    await db.transaction(async (trx) => {
      await recordEvent(trx, anyEvent('thing.created'), 1, { n: 1 });
      await recordEvent(trx, anyEvent('thing.updated'), 1, { n: 2 });
    });
    await db
      .transaction(async (trx) => {
        await recordEvent(trx, anyEvent('thing.rolled_back'), 1, { n: 3 });
        throw new Error('abort');
      })
      .catch(() => undefined);
    // A long poll interval: only stop() can have published them.
    const relay = new OutboxRelay(db, bus, log, 60_000);
    await relay.stop();
    await waitFor(() => received.length >= 2);
    expect(received.map((e) => [e.type, e.data])).toEqual([
      ['thing.created', { n: 1 }],
      ['thing.updated', { n: 2 }],
    ]);
    expect(await db('outbox').whereNull('published_at').count({ n: '*' })).toEqual([{ n: 0 }]);
    expect(await db('outbox').count({ n: '*' })).toEqual([{ n: 2 }]);
  });

  it('keeps events whose publication failed and sends them once the broker is back', async () => {
    const down = new AmqpBus({ url: await testAmqpUrl(), prefix: 'never-connected', log });
    const relay = new OutboxRelay(db, down, log, 60_000);
    await db.transaction((trx) => recordEvent(trx, anyEvent('thing.retried'), 1, { n: 4 }));
    await relay.stop();
    const [row] = await db('outbox').where({ type: 'thing.retried' });
    expect(row).toMatchObject({ published_at: null, attempts: 1 });
    await new OutboxRelay(db, bus, log, 60_000).stop();
    await waitFor(() => received.some((e) => e.type === 'thing.retried'));
  });
});

describe('outbox: events published by their writer right after the commit', () => {
  let database: TestDatabase;
  let db: Knex;
  let bus: AmqpBus;
  let received: EventEnvelope[];
  let relay: OutboxRelay;
  /** Fails the next `failures` publications, then publishes as the bus does. */
  let failures = 0;
  let statements: string[] = [];
  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(database.url, 'svc', 4);
    await migrate(db, 'svc', runtimeMigrations);
    bus = new AmqpBus({ url: await testAmqpUrl(), prefix: uniqueName('ob'), log });
    await bus.connect();
    received = [];
    await bus.subscribe({ name: 'observer', events: ['#'], handler: async (e) => void received.push(e) });
    const flaky: Bus = Object.create(bus, {
      publish: { value: (event: EventEnvelope) => (failures-- > 0 ? Promise.reject(new Error('broker said no')) : bus.publish(event)) },
    });
    db.on('query', (q: { sql: string }) => statements.push(q.sql));
    // A poll far away: only the writer's publication, or a kick, can send anything.
    relay = new OutboxRelay(db, flaky, log, 60_000);
    relay.start();
  });
  afterAll(async () => {
    await relay.stop();
    await bus.close();
    await bus.destroyTopology();
    await db.destroy();
    await database.drop();
  });
  beforeEach(() => {
    statements = [];
  });

  const seen = (type: string) => received.filter((e) => e.type === type);
  const row = async (id: string) => db('outbox').where({ event_id: id }).first();

  it("sends a committed transaction's events without polling and marks them sent", async () => {
    const [first, second] = await db.transaction(async (trx) => [
      await recordEvent(trx, anyEvent('direct.one'), 1, { n: 1 }),
      await recordEvent(trx, anyEvent('direct.two'), 1, { n: 2 }),
    ]);
    await waitFor(() => seen('direct.one').length === 1 && seen('direct.two').length === 1);
    expect(received.filter((e) => e.type.startsWith('direct.')).map((e) => e.id)).toEqual([first.id, second.id]);
    await waitFor(async () => (await row(second.id)).published_at !== null);
    expect(await row(first.id)).toMatchObject({ claimed_until: null, attempts: 0 });
    // No relay pass ran: it would have claimed rows with an update returning them.
    expect(statements.filter((s) => /returning id, envelope/.test(s))).toEqual([]);
  });

  it('sends nothing of a transaction that rolled back', async () => {
    await db
      .transaction(async (trx) => {
        await recordEvent(trx, anyEvent('direct.rolled_back'), 1, {});
        throw new Error('abort');
      })
      .catch(() => undefined);
    const after = await db.transaction((trx) => recordEvent(trx, anyEvent('direct.after'), 1, {}));
    await waitFor(() => seen('direct.after').length === 1);
    await waitFor(async () => (await row(after.id)).published_at !== null);
    expect(seen('direct.rolled_back')).toEqual([]);
  });

  it('leaves an event whose publication failed to the poll, which sends it', async () => {
    failures = 1;
    const event = await db.transaction((trx) => recordEvent(trx, anyEvent('direct.failed_once'), 1, {}));
    // Its claim is released at once, so the next pass takes it.
    await waitFor(async () => (await row(event.id)).claimed_until === null);
    expect(seen('direct.failed_once')).toEqual([]);
    relay.kick();
    await waitFor(async () => (await row(event.id)).published_at !== null);
    expect(seen('direct.failed_once').map((e) => e.id)).toEqual([event.id]);
  });

  it('leaves an event recorded inside a savepoint to a poll made once the transaction committed', async () => {
    const event = await db.transaction((trx) => trx.transaction((sp) => recordEvent(sp, anyEvent('direct.in_savepoint'), 1, {})));
    await waitFor(async () => (await row(event.id)).published_at !== null);
    expect(seen('direct.in_savepoint').map((e) => e.id)).toEqual([event.id]);
    // A relay pass took it: the writer did not publish it itself.
    expect(statements.filter((s) => /returning id, envelope/.test(s)).length).toBeGreaterThan(0);
  });

  it('inserts the events of a transaction the runtime opened with its last statement, and sends them', async () => {
    const key = { orgId: 1, key: randomUUID(), operation: 'op', hash: 'h', ttlHours: 24 };
    const [first, second] = await inTransaction(db, async (trx) => {
      const events = [
        await recordEvent(trx, anyEvent('deferred.one'), 1, { n: 1 }),
        await recordEvent(trx, anyEvent('deferred.two'), 1, { n: 2 }),
      ];
      expect(await recordReply(trx, key, { ok: true, status: 200, body: {} })).toBe(true);
      return events;
    });
    const inserts = statements.filter((s) => /insert into outbox/i.test(s));
    expect(inserts).toHaveLength(1);
    expect(inserts[0]).toMatch(/insert into idempotency/i);
    await waitFor(async () => (await row(second!.id))?.published_at != null);
    expect(received.filter((e) => e.type.startsWith('deferred.')).map((e) => e.id)).toEqual([first!.id, second!.id]);
    expect(await db(OPERATION_KEYS).where({ key: key.key })).toHaveLength(1);
  });

  it('inserts them in one statement at the end when nothing else ends the transaction, and none of a rolled-back one', async () => {
    await inTransaction(db, async (trx) => {
      await recordEvent(trx, anyEvent('deferred.dropped'), 1, {});
      throw new Error('abort');
    }).catch(() => undefined);
    const events = await inTransaction(db, async (trx) => [
      await recordEvent(trx, anyEvent('deferred.a'), 1, {}),
      await recordEvent(trx, anyEvent('deferred.b'), 1, {}),
    ]);
    expect(statements.filter((s) => /insert into outbox/i.test(s))).toHaveLength(1);
    await waitFor(async () => (await row(events[1]!.id))?.published_at != null);
    expect(seen('deferred.a').map((e) => e.id)).toEqual([events[0]!.id]);
    expect(await db('outbox').where({ type: 'deferred.dropped' })).toEqual([]);
  });

  it('writes the parts a handler stores with the commit in the statement that records the reply, and none of them when a twin recorded first', async () => {
    await db.raw('create table if not exists store_parts (id int primary key, label text not null)');
    const key = { orgId: 1, key: randomUUID(), operation: 'op', hash: 'h', ttlHours: 24 };
    const part = (id: number, label: string) => ({ sql: 'insert into store_parts (id, label) values (?, ?)', bindings: [id, label] });
    const event = await inTransaction(db, async (trx) => {
      await storeWithCommit(trx, [part(1, 'one'), part(2, 'two')]);
      const recorded = await recordEvent(trx, anyEvent('stored.with_commit'), 1, {});
      expect(await recordReply(trx, key, { ok: true, status: 200, body: {} })).toBe(true);
      return recorded;
    });
    const writes = statements.filter((s) => /insert into store_parts/.test(s));
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatch(/insert into outbox[\s\S]*insert into idempotency/i);
    expect(await db('store_parts').orderBy('id')).toEqual([
      { id: 1, label: 'one' },
      { id: 2, label: 'two' },
    ]);
    await waitFor(async () => (await row(event.id))?.published_at != null);
    const twin = await inTransaction(db, async (trx) => {
      await storeWithCommit(trx, [part(3, 'twin')]);
      // The runtime rolls back a transaction whose record found a twin's (AlreadyRecorded).
      if (!(await recordReply(trx, key, { ok: true, status: 200, body: {} }))) throw new Error('a twin recorded first');
    }).catch((err: unknown) => err);
    expect(twin).toEqual(new Error('a twin recorded first'));
    expect(await db('store_parts').where({ id: 3 })).toEqual([]);
  });

  it('writes the parts with the events in one statement at the end when nothing records a reply, and at once outside a transaction the runtime opened', async () => {
    await db.raw('create table if not exists store_parts (id int primary key, label text not null)');
    const part = (id: number) => ({ sql: 'insert into store_parts (id, label) values (?, ?)', bindings: [id, 'p'] });
    await inTransaction(db, async (trx) => {
      await storeWithCommit(trx, [part(10)]);
      await recordEvent(trx, anyEvent('stored.at_end'), 1, {});
    });
    const writes = statements.filter((s) => /insert into store_parts/.test(s));
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatch(/insert into outbox/i);
    await db.transaction(async (trx) => {
      await storeWithCommit(trx, [part(11), part(12)]);
      // Written already: this transaction reads it.
      expect(await trx('store_parts').whereIn('id', [11, 12])).toHaveLength(2);
    });
    await inTransaction(db, async (trx) => {
      await storeWithCommit(trx, [part(13)]);
      throw new Error('abort');
    }).catch(() => undefined);
    expect((await db('store_parts').whereIn('id', [10, 11, 12, 13]).orderBy('id')).map((r: { id: number }) => r.id)).toEqual([10, 11, 12]);
  });

  it('writes the parts stored at once now, as one statement, even in a transaction the runtime opened: the statements after them see their rows', async () => {
    await db.raw('create table if not exists store_parts (id int primary key, label text not null)');
    const part = (id: number) => ({ sql: 'insert into store_parts (id, label) values (?, ?)', bindings: [id, 'now'] });
    const before = statements.length;
    await inTransaction(db, async (trx) => {
      await storeAtOnce(trx, [part(20), part(21)]);
      expect(await trx('store_parts').whereIn('id', [20, 21])).toHaveLength(2);
      await recordEvent(trx, anyEvent('stored.at_once'), 1, {});
    });
    const writes = statements.slice(before).filter((s) => /insert into store_parts/.test(s));
    expect(writes).toHaveLength(1);
    expect(writes[0]).not.toMatch(/insert into outbox/i);
    await inTransaction(db, async (trx) => {
      await storeAtOnce(trx, [part(22)]);
      throw new Error('abort');
    }).catch(() => undefined);
    expect((await db('store_parts').whereIn('id', [20, 21, 22]).orderBy('id')).map((r: { id: number }) => r.id)).toEqual([20, 21]);
  });

  it("does not poll a row while its writer's claim runs, and takes it once the claim ran out", async () => {
    const claimed = { event_id: randomUUID(), type: 'direct.claimed', org_id: 1 };
    await db('outbox').insert({
      ...claimed,
      envelope: JSON.stringify({ id: claimed.event_id, type: claimed.type, occurred_at: '2026-01-01T00:00:00', org_id: 1, data: {} }),
      claimed_until: db.raw(`now() + interval '1 hour'`),
    });
    const other = await db.transaction(async (trx) => {
      // Recorded in a savepoint: published by a poll, which must skip the claimed row.
      return trx.transaction((sp) => recordEvent(sp, anyEvent('direct.polled'), 1, {}));
    });
    await waitFor(async () => (await row(other.id)).published_at !== null);
    expect(await row(claimed.event_id)).toMatchObject({ published_at: null });
    await db('outbox')
      .where({ event_id: claimed.event_id })
      .update({ claimed_until: db.raw(`now() - interval '1 second'`) });
    relay.kick();
    await waitFor(async () => (await row(claimed.event_id)).published_at !== null);
    expect(seen('direct.claimed').map((e) => e.id)).toEqual([claimed.event_id]);
  });
});

describe('outbox: marks sent ride on later store statements', () => {
  let database: TestDatabase;
  let db: Knex;
  let bus: AmqpBus;
  let relay: OutboxRelay;
  const statements: Array<{ sql: string; bindings: unknown[] }> = [];
  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(database.url, 'svc', 4);
    await migrate(db, 'svc', runtimeMigrations);
    await db.raw('create table riders (id int primary key)');
    bus = new AmqpBus({ url: await testAmqpUrl(), prefix: uniqueName('ob'), log });
    await bus.connect();
    db.on('query', (q: { sql: string; bindings?: unknown[] }) => statements.push({ sql: q.sql, bindings: q.bindings ?? [] }));
    // No poll and no timer within the test: a mark can only ride on a store statement.
    relay = new OutboxRelay(db, bus, log, 600_000, 600_000);
    relay.start();
  });
  afterAll(async () => {
    await relay.stop();
    await bus.close();
    await bus.destroyTopology();
    await db.destroy();
    await database.drop();
  });

  const row = async (id: string) => db('outbox').where({ event_id: id }).first();
  let next = 0;
  /** A write of the runtime's shape: a part stored with the commit, and an event; `fails` makes the part fail there. */
  const write = (fails = false) =>
    inTransaction(db, async (trx) => {
      const id = fails ? 0 : ++next;
      await storeWithCommit(trx, [{ sql: 'insert into riders (id) values (?)', bindings: [id] }]);
      return recordEvent(trx, anyEvent('rider.written'), 1, { id });
    });
  /** Whether a statement sent carried the event's mark. */
  const carried = (eventId: string, from: number) =>
    statements
      .slice(from)
      .some((s) => /marked as \(update outbox set published_at/.test(s.sql) && JSON.stringify(s.bindings).includes(eventId));

  it("marks an event sent in the next write's store statement, at that write's time", async () => {
    const first = await write();
    let rider: EventEnvelope | undefined;
    await waitFor(async () => {
      rider = await write();
      return (await row(first.id)).published_at !== null;
    });
    const [marked, carrier] = [await row(first.id), await row(rider!.id)];
    // now() is the transaction's start: the mark was written by the rider's own transaction.
    expect(marked.published_at).toEqual(carrier.created_at);
    expect(marked.claimed_until).toBeNull();
  });

  it('gives the marks back when the statement carrying them fails, and the next write marks them', async () => {
    const first = await write();
    await db.raw('insert into riders (id) values (0)');
    const from = statements.length;
    // Each failing write (its part meets the row of id 0) takes the marks waiting, until one took this event's.
    await waitFor(async () => {
      await expect(write(true)).rejects.toThrow(/riders_pkey/);
      return carried(first.id, from);
    });
    expect((await row(first.id)).published_at).toBeNull();
    let rider: EventEnvelope | undefined;
    await waitFor(async () => {
      rider = await write();
      return (await row(first.id)).published_at !== null;
    });
    const [marked, carrier] = [await row(first.id), await row(rider!.id)];
    expect(marked.published_at).toEqual(carrier.created_at);
  });
});

describe('outbox relay: marks lent to a statement that has not ended', () => {
  let database: TestDatabase;
  let db: Knex;
  let bus: AmqpBus;
  let relay: OutboxRelay;
  const statements: string[] = [];
  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(database.url, 'svc', 4);
    await migrate(db, 'svc', runtimeMigrations);
    await db.raw('create table riders (id int primary key)');
    bus = new AmqpBus({ url: await testAmqpUrl(), prefix: uniqueName('ob'), log });
    await bus.connect();
    db.on('query', (q: { sql: string; bindings?: unknown[] }) => statements.push(`${q.sql} ${JSON.stringify(q.bindings ?? [])}`));
    // No poll within the test; the timer marks what waited 300 ms.
    relay = new OutboxRelay(db, bus, log, 600_000, 300);
    relay.start();
  });
  afterAll(async () => {
    await relay.stop();
    await bus.close();
    await bus.destroyTopology();
    await db.destroy();
    await database.drop();
  });

  const row = async (id: string) => db('outbox').where({ event_id: id }).first();
  const write = (id: number) =>
    inTransaction(db, async (trx) => {
      await storeWithCommit(trx, [{ sql: 'insert into riders (id) values (?)', bindings: [id] }]);
      return recordEvent(trx, anyEvent('rider.written'), 1, { id });
    });
  /** The relay's marks waiting for a statement (its own state: when a write published its event is not seen from outside). */
  const waiting = () => (relay as unknown as { marks: string[] }).marks;

  it('marks them itself once they were lent longer than its delay, while the statement carrying them still waits', async () => {
    const first = await write(1);
    await waitFor(() => waiting().includes(first.id));
    // A rider takes the mark with its last statement, which then waits for a lock the test holds.
    const blocker = await db.transaction();
    await blocker.raw('lock table riders in exclusive mode');
    const from = statements.length;
    const riding = write(2);
    await waitFor(() => statements.slice(from).some((sql) => sql.includes('marked as (update outbox') && sql.includes(first.id)));
    // The timer marks it while the rider still waits: a statement that is slow to end keeps no event unmarked past the claim.
    await waitFor(async () => (await row(first.id)).published_at !== null);
    expect(await Promise.race([riding.then(() => 'ended'), new Promise((resolve) => setImmediate(resolve, 'waiting'))])).toBe('waiting');
    await blocker.commit();
    await riding;
  });
});

describe('outbox relay: several instances', () => {
  let database: TestDatabase;
  let db: Knex;
  let bus: AmqpBus;
  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(database.url, 'svc', 2);
    await migrate(db, 'svc', runtimeMigrations);
    bus = new AmqpBus({ url: await testAmqpUrl(), prefix: uniqueName('ob'), log });
    await bus.connect();
  });
  afterAll(async () => {
    await bus.close();
    await bus.destroyTopology();
    await db.destroy();
    await database.drop();
  });

  it('shares a backlog between two instances: every event published once, by one of them', async () => {
    // A writer no relay runs beside (as a crash would leave them): every row is the polls' to take.
    const writer = createDb(database.url, 'svc', 2);
    const other = createDb(database.url, 'svc', 2);
    const published = new Map<string, number>();
    /** The same bus, counting what each relay publishes. */
    const counting = (): Bus =>
      Object.assign(Object.create(bus) as Bus, {
        publish: (event: EventEnvelope, opts?: Parameters<Bus['publish']>[1]) => {
          published.set(event.id, (published.get(event.id) ?? 0) + 1);
          return bus.publish(event, opts);
        },
      });
    const relays = [new OutboxRelay(db, counting(), log, 20), new OutboxRelay(other, counting(), log, 20)];
    try {
      const ids = await writer.transaction(async (trx) => {
        const out: string[] = [];
        for (let i = 0; i < 600; i++) out.push((await recordEvent(trx, anyEvent('backlog.item'), 1, { i })).id);
        return out;
      });
      for (const r of relays) r.start();
      await waitUntil(async () => (await db('outbox').whereIn('event_id', ids).whereNull('published_at').count({ n: '*' }))[0]!.n === 0, {
        timeoutMs: 20_000,
      });
      for (const r of relays) await r.stop();
      expect([...published.keys()].sort()).toEqual([...ids].sort());
      expect([...published.values()].filter((n) => n !== 1)).toEqual([]);
    } finally {
      for (const r of relays) await r.stop();
      await writer.destroy();
      await other.destroy();
    }
  });
});

/** The relay publishes within a few seconds or not at all. */
const waitFor = (check: () => boolean | Promise<boolean>) => waitUntil(check, { timeoutMs: 5000, intervalMs: 25 });
