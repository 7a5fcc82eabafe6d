import type { EventEnvelope } from '@bo/contracts';
import { AmqpBus } from '../src/bus/amqp';
import { createDb, migrate, type Knex } from '../src/db';
import { runtimeMigrations } from '../src/runtime-migrations';
import { createLogger } from '../src/logger';
import { OutboxRelay, recordEvent } from '../src/outbox';
import { createTestDatabase, testAmqpUrl, uniqueName, type TestDatabase } from '../src/testing/infra';

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
      await recordEvent(trx, 'thing.created', 1, { n: 1 });
      await recordEvent(trx, 'thing.updated', 1, { n: 2 });
    });
    await db
      .transaction(async (trx) => {
        await recordEvent(trx, 'thing.rolled_back', 1, { n: 3 });
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
    await db.transaction((trx) => recordEvent(trx, 'thing.retried', 1, { n: 4 }));
    await relay.stop();
    const [row] = await db('outbox').where({ type: 'thing.retried' });
    expect(row).toMatchObject({ published_at: null, attempts: 1 });
    await new OutboxRelay(db, bus, log, 60_000).stop();
    await waitFor(() => received.some((e) => e.type === 'thing.retried'));
  });
});

async function waitFor(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}
