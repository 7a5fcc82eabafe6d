import { consumers, type EventEnvelope } from '@bo/contracts';
import { currentTraceContext, type InboxHandlerDef } from '@bo/runtime';
import { matchesAny } from '../domain/patterns';
import { wakeAfterCommit } from './wake';

const NAME = 'webhooks.deliveries';

/**
 * Every event becomes one delivery row per enabled endpoint of its organization whose events match
 * it, in the inbox's transaction: the rows exist exactly when the event is recorded as taken, and
 * the unique (endpoint, event) makes a second copy of an event queue nothing. Sending is the
 * dispatcher's work, so a slow receiver never holds an event consumer.
 */
export const deliveriesConsumer: InboxHandlerDef = {
  name: NAME,
  events: consumers.find((c) => c.name === NAME)?.events ?? [],
  async handleBatch(trx, events: EventEnvelope[], log) {
    const orgs = [...new Set(events.map((e) => e.org_id))];
    const endpoints = await trx('endpoints')
      .whereIn('org_id', orgs)
      .where({ status: 'enabled' })
      .whereNull('deleted_at')
      .select<Array<{ id: number; org_id: number; events: string[] }>>('id', 'org_id', 'events');
    if (endpoints.length === 0) return;
    const trace = currentTraceContext();
    const rows = events.flatMap((event) =>
      endpoints
        .filter((ep) => ep.org_id === event.org_id && matchesAny(ep.events, event.type))
        .map((ep) => ({
          org_id: event.org_id,
          endpoint_id: ep.id,
          event_id: event.id,
          event_type: event.type,
          payload: JSON.stringify({
            id: event.id,
            type: event.type,
            created_at: event.occurred_at,
            org_id: event.org_id,
            data: event.data,
          }),
          next_attempt_at: trx.fn.now(),
          traceparent: trace?.traceparent ?? null,
          tracestate: trace?.tracestate ?? null,
        })),
    );
    if (rows.length === 0) return;
    await trx('deliveries').insert(rows).onConflict(['endpoint_id', 'event_id']).ignore();
    log.debug({ deliveries: rows.length }, 'webhook deliveries queued');
    wakeAfterCommit(trx);
  },
};
