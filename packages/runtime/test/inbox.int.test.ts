import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '@bo/contracts';
import { createDb, migrate, type Knex } from '../src/db';
import { asPlannedCheckMigration, inboxSubscription } from '../src/inbox';
import { statementEvent } from '../src/one-statement';
import { createLogger } from '../src/logger';
import { runtimeMigrations } from '../src/runtime-migrations';
import { createTestDatabase, type TestDatabase } from '@bo/testkit';
import { z } from 'zod';

const log = createLogger('test', 'silent');

/** The inbox applies each event once; events waiting behind a running transaction share the next one. */
describe('inbox', () => {
  let database: TestDatabase;
  let db: Knex;
  let statements: string[] = [];
  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(database.url, 'svc', 3);
    await migrate(db, 'svc', runtimeMigrations);
    await db.raw('create table svc.effects (event_id uuid not null, n int not null)');
    await db.raw('create table svc.tallies (id int primary key, n int not null check (n <> 13))');
    await db.transaction((trx) => asPlannedCheckMigration('as planned').up(trx, 'svc'));
    db.on('query', (q: { sql: string }) => statements.push(q.sql));
  });
  beforeEach(async () => {
    await db('effects').delete();
    await db('tallies').delete();
    statements = [];
  });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });

  const event = (n: number, id: string = randomUUID()): EventEnvelope => ({
    id,
    type: 'thing.happened',
    occurred_at: '2026-01-01T00:00:00',
    org_id: 1,
    data: { n },
  });
  const consumer = (name: string, failOn?: number) =>
    inboxSubscription(
      {
        name,
        events: ['thing.happened'],
        async handle(trx, e) {
          const n = (e.data as { n: number }).n;
          await trx('effects').insert({ event_id: e.id, n });
          if (n === failOn) throw new Error(`event ${n} refused`);
        },
      },
      db,
      log,
    );
  const effects = async () => (await db('effects').orderBy('n')).map((r: { n: number }) => r.n);
  const begins = () => statements.filter((s) => /^BEGIN/i.test(s)).length;

  it('applies the events that waited behind a transaction together in the next one, in order', async () => {
    const sub = consumer('c.batch');
    const first = sub.handler(event(1), { attempt: 1 });
    const waiting = [2, 3, 4, 5].map((n) => sub.handler(event(n), { attempt: 1 }));
    await Promise.all([first, ...waiting]);
    expect(await effects()).toEqual([1, 2, 3, 4, 5]);
    expect(begins()).toBe(2);
    expect(await db('inbox').where({ consumer: 'c.batch' }).count({ n: '*' })).toEqual([{ n: 5 }]);
  });

  it('fails only the event whose effect failed; the others of its batch take effect', async () => {
    const sub = consumer('c.failing', 3);
    const first = sub.handler(event(1), { attempt: 1 });
    const rest = [2, 3, 4].map((n) => sub.handler(event(n), { attempt: 1 }));
    const outcomes = await Promise.allSettled([first, ...rest]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[2] as PromiseRejectedResult).reason).toEqual(new Error('event 3 refused'));
    expect(await effects()).toEqual([1, 2, 4]);
    // The failed one left no inbox row: its retry applies it.
    expect((await db('inbox').where({ consumer: 'c.failing' })).length).toBe(3);
  });

  it("removes an event's pending in-process delivery in the transaction of its effect, and keeps it when the effect failed", async () => {
    const sub = consumer('c.store', 2);
    const [ok, failing] = [event(1), event(2)];
    // Stored together when added at once; an event pending already is not stored again.
    expect(await Promise.all([ok, failing, ok].map((e) => sub.store!.add(e)))).toEqual([true, true, false]);
    expect(await sub.store!.add(failing)).toBe(false);
    await sub.handler(ok, { attempt: 1 });
    await expect(sub.handler(failing, { attempt: 1 })).rejects.toThrow('event 2 refused');
    const pending = (await db('event_deliveries').where({ consumer: 'c.store' })).map((r: { event_id: string }) => r.event_id);
    expect(pending).toEqual([failing.id]);
    expect(await effects()).toEqual([1]);
  });

  it('runs a transaction PostgreSQL aborted for a deadlock again at once, instead of failing the event', async () => {
    let deadlocks = 1;
    const sub = inboxSubscription(
      {
        name: 'c.deadlock',
        events: ['thing.happened'],
        async handle(trx, e) {
          await trx('effects').insert({ event_id: e.id, n: (e.data as { n: number }).n });
          if (deadlocks-- > 0) throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
        },
      },
      db,
      log,
    );
    await sub.handler(event(7), { attempt: 1 });
    expect(await effects()).toEqual([7]);
  });

  it('gives a batch consumer the fresh events of a batch in one call, in order, and each alone again when the batch failed', async () => {
    const calls: number[][] = [];
    const sub = inboxSubscription(
      {
        name: 'c.set-based',
        events: ['thing.happened'],
        async handleBatch(trx, events) {
          const ns = events.map((e) => (e.data as { n: number }).n);
          calls.push(ns);
          await trx('effects').insert(events.map((e, i) => ({ event_id: e.id, n: ns[i] })));
          if (ns.includes(13)) throw new Error('event 13 refused');
        },
      },
      db,
      log,
    );
    const seen = event(1);
    await sub.handler(seen, { attempt: 1 });
    const first = sub.handler(event(2), { attempt: 1 });
    const rest = [sub.handler(seen, { attempt: 2 }), sub.handler(event(3), { attempt: 1 }), sub.handler(event(4), { attempt: 1 })];
    await Promise.all([first, ...rest]);
    // The redelivered event 1 is not handed over again.
    expect(calls).toEqual([[1], [2], [3, 4]]);
    calls.length = 0;

    const head = sub.handler(event(10), { attempt: 1 });
    const tail = [11, 13, 12].map((n) => sub.handler(event(n), { attempt: 1 }));
    const outcomes = await Promise.allSettled([head, ...tail]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(calls).toEqual([[10], [11, 13, 12], [11], [13], [12]]);
    expect(await effects()).toEqual([1, 2, 3, 4, 10, 11, 12]);
  });

  it('applies an event once, whether it comes again later or twice in one batch', async () => {
    const sub = consumer('c.twins');
    const id = randomUUID();
    await sub.handler(event(1, id), { attempt: 1 });
    const other = randomUUID();
    const first = sub.handler(event(2), { attempt: 1 });
    await Promise.all([
      first,
      sub.handler(event(1, id), { attempt: 2 }),
      sub.handler(event(3, other), { attempt: 1 }),
      sub.handler(event(3, other), { attempt: 1 }),
    ]);
    expect(await effects()).toEqual([1, 2, 3]);
  });

  describe('a consumer whose effect is one statement', () => {
    const upserts = (name: string, applied?: (rowCount: number) => void) =>
      inboxSubscription(
        {
          name,
          events: ['thing.happened'],
          ...(applied ? { applied } : {}),
          // Idempotent, as the kind requires: the highest n seen per id.
          statement(events) {
            const ns = events.map((e) => (e.data as { n: number }).n).filter((n) => n > 0);
            if (!ns.length) return undefined;
            return {
              sql: `insert into tallies (id, n) values ${ns.map(() => '(?, ?)').join(', ')}
                    on conflict (id) do update set n = greatest(tallies.n, excluded.n)`,
              bindings: ns.flatMap((n) => [n, n]),
            };
          },
        },
        db,
        log,
      );
    const tallies = async () => (await db('tallies').orderBy('id')).map((r: { n: number }) => r.n);
    const recorded = async (name: string) => (await db('inbox').where({ consumer: name }).count({ n: '*' }))[0]?.n;

    it('commits a batch and its inbox rows in one statement, without a transaction', async () => {
      const sub = upserts('c.statement');
      const first = sub.handler(event(1), { attempt: 1 });
      const waiting = [2, 3, 4].map((n) => sub.handler(event(n), { attempt: 1 }));
      await Promise.all([first, ...waiting]);
      expect(await tallies()).toEqual([1, 2, 3, 4]);
      expect(await recorded('c.statement')).toBe(4);
      expect(begins()).toBe(0);
      // The first alone, the three that waited behind it together.
      expect(statements.filter((s) => /insert into "?tallies"?/i.test(s) && /insert into "?inbox"?/i.test(s))).toHaveLength(2);
    });

    it('tells the consumer, once committed, how many rows its effect wrote', async () => {
      const counts: number[] = [];
      const sub = upserts('c.statement-applied', (n) => counts.push(n));
      await sub.handler(event(7), { attempt: 1 });
      await sub.handler(event(0), { attempt: 1 });
      await sub.handler(event(8), { attempt: 1 });
      // The event without an effect ran no effect statement, so nothing was told of it.
      expect(counts).toEqual([1, 1]);
      expect(await tallies()).toEqual([7, 8]);
    });

    it('records the events of a batch with no effect, and applies a redelivered one to the same end', async () => {
      const sub = upserts('c.statement-none');
      const nothing = event(0);
      await sub.handler(nothing, { attempt: 1 });
      expect(await recorded('c.statement-none')).toBe(1);
      const five = event(5);
      await sub.handler(five, { attempt: 1 });
      await sub.handler(five, { attempt: 2 });
      expect(await tallies()).toEqual([5]);
      expect(await recorded('c.statement-none')).toBe(2);
    });

    it("fails only the event whose statement failed, leaving it unrecorded, and removes the others' pending deliveries", async () => {
      const sub = upserts('c.statement-failing');
      const events = [event(1), event(2), event(13), event(4)];
      await Promise.all(events.map((e) => sub.store!.add(e)));
      const outcomes = await Promise.allSettled(events.map((e) => sub.handler(e, { attempt: 1 })));
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
      expect(await tallies()).toEqual([1, 2, 4]);
      expect(await db('inbox').where({ consumer: 'c.statement-failing', event_id: events[2]!.id })).toEqual([]);
      expect(await recorded('c.statement-failing')).toBe(3);
      const pending = (await db('event_deliveries').where({ consumer: 'c.statement-failing' })).map(
        (r: { event_id: string }) => r.event_id,
      );
      expect(pending).toEqual([events[2]!.id]);
    });

    it('refuses a statement starting with WITH, which could not follow the inbox CTEs', async () => {
      const sub = inboxSubscription(
        {
          name: 'c.with',
          events: ['thing.happened'],
          statement: () => ({ sql: 'with x as (select 1) delete from tallies', bindings: [] }),
        },
        db,
        log,
      );
      await expect(sub.handler(event(1), { attempt: 1 })).rejects.toThrow('may not start with WITH');
      expect(await recorded('c.with')).toBe(0);
    });
  });
  describe('a consumer that plans its store (load, then one statement)', () => {
    const counted = { type: 'thing.counted', summary: 'A thing was counted.', data: z.object({ n: z.number() }) };
    /** Stores each event's `n` as a tally and announces it; `rows`: the count its plan holds the insert to. */
    const planned = (name: string, rows: (ns: number[]) => number) =>
      inboxSubscription(
        {
          name,
          events: ['thing.happened'],
          load: () => ({ sql: 'select 1 as one', bindings: [] }),
          store: (events) => {
            const ns = events.map((e) => (e.data as { n: number }).n);
            return {
              writes: [
                {
                  sql: 'insert into tallies (id, n) select n, n from unnest(?::int[]) as n on conflict (id) do nothing returning 1',
                  bindings: [ns],
                  rows: rows(ns),
                },
              ],
              events: events.map((e) => statementEvent(counted, e.org_id, { n: (e.data as { n: number }).n })),
            };
          },
        },
        db,
        log,
      );
    const announced = async () =>
      (await db('outbox').where({ type: 'thing.counted' })).map((r: { envelope: { data: { n: number } } }) => r.envelope.data.n);
    const tallies = async () => (await db('tallies').orderBy('id')).map((r: { n: number }) => r.n);
    beforeEach(() => db('outbox').delete());

    it('writes the events it announces in the statement that stores its writes and inbox rows', async () => {
      const sub = planned('c.planned', (ns) => ns.length);
      await sub.handler(event(3), { attempt: 1 });
      expect(await tallies()).toEqual([3]);
      expect(await announced()).toEqual([3]);
      expect(begins()).toBe(0);
      expect(statements.filter((s) => /insert into outbox/i.test(s) && /insert into tallies/i.test(s))).toHaveLength(1);
    });

    it('leaves no event of a store whose counts were not as planned', async () => {
      // A tally there already: the insert writes nothing, so its count differs from the plan's, each time.
      await db('tallies').insert({ id: 9, n: 9 });
      const sub = planned('c.planned-stale', (ns) => ns.length);
      await expect(sub.handler(event(9), { attempt: 1 })).rejects.toThrow();
      expect(await announced()).toEqual([]);
      expect(await db('inbox').where({ consumer: 'c.planned-stale' })).toEqual([]);
    });
  });
});
