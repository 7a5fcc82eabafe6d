import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '@bo/contracts';
import { collectSpans, createTestDatabase, type SpanCollector, type TestDatabase } from '@bo/testkit';
import { createDb, migrate, type Knex } from '../src/db';
import { inboxSubscription } from '../src/inbox';
import { createLogger } from '../src/logger';
import { extractContext, inSpan, SpanKind, startSpan, type TraceContext } from '../src/observability/tracing';
import { runtimeMigrations } from '../src/runtime-migrations';

/**
 * A batch runs in its first event's trace; a statement consumer is also told the trace each event
 * arrived in, so what it keeps per event (webhooks' deliveries) continues that event's own trace.
 */
describe('the traces of a batch of events', () => {
  let spans: SpanCollector;
  let database: TestDatabase;
  let db: Knex;
  beforeAll(async () => {
    spans = collectSpans();
    database = await createTestDatabase();
    db = createDb(database.url, 'svc', 2);
    await migrate(db, 'svc', runtimeMigrations);
  });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
    await spans.stop();
  });

  it("gives a statement consumer each event's own trace, the events that waited together included", async () => {
    const told: Array<Array<TraceContext | undefined>> = [];
    const sub = inboxSubscription(
      {
        name: 'c.traced',
        events: ['thing.happened'],
        statement(_events, _log, traces) {
          told.push([...traces]);
          return undefined;
        },
      },
      db,
      createLogger('test', 'silent'),
    );
    const event = (): EventEnvelope => ({
      id: randomUUID(),
      type: 'thing.happened',
      occurred_at: '2026-01-01T00:00:00',
      org_id: 1,
      data: {},
    });
    // Each event handled in a consume span of its own trace, as the bus does.
    const root = extractContext(undefined);
    const consumed = Array.from({ length: 4 }, () => startSpan('svc', 'consume thing.happened', SpanKind.CONSUMER, root));
    const handled = consumed.map((span) => inSpan(span, root, () => sub.handler(event(), { attempt: 1 })));
    await Promise.all(handled);

    // The first alone, the three that waited behind it together.
    expect(told.map((batch) => batch.length)).toEqual([1, 3]);
    const traceIds = told.flat().map((t) => t?.traceparent.split('-')[1]);
    expect(traceIds).toEqual(consumed.map((s) => s.spanContext().traceId));
    expect(new Set(traceIds).size).toBe(4);
  });
});
