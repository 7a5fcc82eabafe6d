import { consumer } from '@bo/contracts';
import { bindConsumer } from '@bo/runtime';
import { matchesAnySql } from '../domain/patterns';
import { currentRoutes } from './routes';
import { wakeDispatchers } from './wake';

/**
 * Every event becomes one delivery row per enabled endpoint of its organization whose events match
 * it. A batch of events is one statement run with its inbox rows (no transaction): every event of a
 * business write passes through here, most of them for organizations without endpoints, so it costs
 * one round trip. The unique (endpoint, event) makes a second copy of an event queue nothing. Sending
 * is the dispatcher's work, so a slow receiver never holds an event consumer; it is woken when rows
 * were queued. It is routed (routes.ts): only the types some enabled endpoint wants reach it. Each
 * row keeps the trace its event arrived in (not the batch's), which every attempt's span continues.
 */
export const deliveriesConsumer = bindConsumer(consumer.webhooksDeliveries).to({
  routes: currentRoutes,
  forward(events, _log, traces) {
    const rows = events.map((event, i) => ({
      i,
      org_id: event.org_id,
      id: event.id,
      type: event.type,
      payload: { id: event.id, type: event.type, created_at: event.occurred_at, org_id: event.org_id, data: event.data },
      // Absent (null to the recordset) when tracing is off.
      ...traces[i],
    }));
    return {
      sql: `insert into deliveries (org_id, endpoint_id, event_id, event_type, payload, next_attempt_at, traceparent, tracestate)
            select e.org_id, ep.id, e.id, e.type, e.payload, now(), e.traceparent, e.tracestate
            from jsonb_to_recordset(?::jsonb) as e(i int, org_id int, id uuid, type text, payload jsonb, traceparent text, tracestate text)
            join endpoints ep on ep.org_id = e.org_id and ep.status = 'enabled' and ep.deleted_at is null
            where ${matchesAnySql('ep.events', 'e.type')}
            order by e.i, ep.id
            on conflict (endpoint_id, event_id) do nothing`,
      bindings: [JSON.stringify(rows)],
    };
  },
  applied(rowCount) {
    if (rowCount > 0) wakeDispatchers();
  },
});
