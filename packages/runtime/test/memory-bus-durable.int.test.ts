import { anyEvent } from './any-event';
import type { ServiceName } from '@bo/contracts';
import { MemoryBus } from '../src/bus/memory';
import type { Subscription } from '../src/bus/types';
import { baseConfigSchema } from '../src/config';
import { createDb, type Knex } from '../src/db';
import { createLogger } from '../src/logger';
import { recordEvent } from '../src/outbox';
import { startService, type RunningService, type ServiceDefinition } from '../src/service';
import { createTestDatabase, type TestDatabase, waitUntil as until } from '@bo/testkit';

/**
 * The in-process bus over a real database: what it accepted and had not handled when the service
 * stopped is handled after a fresh start (a new bus, a new pool, the same database).
 */
const log = createLogger('test', process.env.TEST_LOG_LEVEL ?? 'silent');
const CONSUMER = 'svc.watcher';

/** The handler fails while `failing` is set; each run sees the attempts its bus made. */
let failing = false;
const definition: ServiceDefinition = {
  name: 'svc' as ServiceName,
  migrations: [],
  handlers: [],
  subscriptions: [
    {
      name: CONSUMER,
      events: ['thing.#'],
      handle: async () => {
        if (failing) throw new Error('not today');
      },
    },
  ],
};

/** A MemoryBus that records the attempt number of every delivery it makes. */
class WatchedBus extends MemoryBus {
  readonly attempts: Array<{ id: string; attempt: number }> = [];
  override async subscribe(sub: Subscription): Promise<void> {
    await super.subscribe({ ...sub, handler: (e, d) => (this.attempts.push({ id: e.id, attempt: d.attempt }), sub.handler(e, d)) });
  }
}

interface Run {
  bus: WatchedBus;
  db: Knex;
  service: RunningService;
  stop(): Promise<void>;
}

describe('in-process bus with its deliveries in the database', () => {
  let database: TestDatabase;
  let db: Knex;
  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(database.url, 'svc', 2);
  });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });

  /** One start of the service as `npm start` makes it: its own pool and a fresh in-process bus. */
  async function start(retryBaseMs: number, maxAttempts = 8): Promise<Run> {
    // A long outbox poll: the relay publishes on start, on stop and when kicked.
    const config = baseConfigSchema.parse({
      DATABASE_URL: database.url,
      EVENT_RETRY_BASE_MS: String(retryBaseMs),
      EVENT_MAX_ATTEMPTS: String(maxAttempts),
      OUTBOX_POLL_MS: '60000',
    });
    const bus = new WatchedBus({ log, maxAttempts, retryBaseMs });
    const runDb = createDb(database.url, 'svc', 3);
    const service = await startService(definition, { db: runDb, bus, log, config });
    return {
      bus,
      db: runDb,
      service,
      async stop() {
        await service.stop();
        await bus.close();
        await runDb.destroy();
      },
    };
  }

  const pending = (id: string) => db('event_deliveries').where({ consumer: CONSUMER, event_id: id }).first();
  const handled = async (id: string) => (await db('inbox').where({ consumer: CONSUMER, event_id: id })).length === 1;

  it('makes a retry still waiting at stop after a fresh start, with its attempt count', async () => {
    failing = true;
    const first = await start(400);
    const event = await first.db.transaction((trx) => recordEvent(trx, anyEvent('thing.happened'), 1, { n: 1 }));
    first.service.relay.kick();
    await until(async () => ((await pending(event.id))?.attempt ?? 0) >= 2);
    await first.stop();

    const left = await pending(event.id);
    expect(left).toMatchObject({ type: 'thing.happened', last_error: 'not today' });
    expect(await handled(event.id)).toBe(false);
    const attemptsBefore = first.bus.attempts.filter((a) => a.id === event.id).map((a) => a.attempt);
    expect(left.attempt).toBe(Math.max(...attemptsBefore) + 1);

    failing = false;
    const second = await start(400);
    try {
      await until(() => handled(event.id));
      expect(second.bus.attempts).toEqual([{ id: event.id, attempt: left.attempt }]);
      await until(async () => (await pending(event.id)) === undefined);
    } finally {
      await second.stop();
    }
  });

  it('keeps an event the outbox hands over while the service stops, and handles it after the next start', async () => {
    failing = false;
    const first = await start(50);
    // The order of a stop: consumers first, then the relay flushes the outbox into the bus.
    await first.bus.stopConsuming();
    const event = await first.db.transaction((trx) => recordEvent(trx, anyEvent('thing.happened'), 1, { n: 2 }));
    await first.stop();
    expect(await db('outbox').where({ event_id: event.id }).whereNotNull('published_at')).toHaveLength(1);
    expect(await pending(event.id)).toMatchObject({ attempt: 1 });
    expect(first.bus.attempts).toEqual([]);

    const second = await start(50);
    try {
      await until(() => handled(event.id));
      await until(async () => (await pending(event.id)) === undefined);
      expect(second.bus.attempts).toEqual([{ id: event.id, attempt: 1 }]);
    } finally {
      await second.stop();
    }
  });

  it('keeps what failed its last attempt among the dead letters, across a restart too', async () => {
    failing = true;
    // A back-off long enough that the second attempt is still waiting when the service stops.
    const first = await start(300, 3);
    const event = await first.db.transaction((trx) => recordEvent(trx, anyEvent('thing.happened'), 1, { n: 3 }));
    first.service.relay.kick();
    await until(async () => ((await pending(event.id))?.attempt ?? 0) >= 2);
    await first.stop();
    expect(await pending(event.id)).toMatchObject({ attempt: 2 });

    const second = await start(300, 3);
    try {
      await until(async () => (await db('event_dead_letters').where({ consumer: CONSUMER, event_id: event.id })).length === 1);
      const [dead] = await db('event_dead_letters').where({ consumer: CONSUMER, event_id: event.id });
      expect(dead).toMatchObject({
        type: 'thing.happened',
        attempts: 3,
        last_error: 'not today',
        envelope: { id: event.id, data: { n: 3 } },
      });
      expect(await pending(event.id)).toBeUndefined();
      expect(await handled(event.id)).toBe(false);
    } finally {
      await second.stop();
      failing = false;
    }
  });
});
