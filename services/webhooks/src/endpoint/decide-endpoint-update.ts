import type { RequestOf, integrations } from '@bo/contracts';
import { AppError } from '@bo/runtime';
import { routedTypes } from '../delivery/routes';
import type { EndpointRow } from './endpoint.record';

type UpdateRequest = Pick<RequestOf<typeof integrations.updateEndpoint>, 'url' | 'events' | 'description' | 'status'>;

/** The columns an update of an endpoint writes (besides its version and updated_at, which every update moves). */
export type EndpointChanges = Partial<
  Pick<EndpointRow, 'url' | 'description' | 'status' | 'disabled_reason' | 'disabled_at' | 'failing_since'> & { events: readonly string[] }
>;

/**
 * The patterns an update makes an endpoint want routed anew (delivery/routes.ts): when it is enabled
 * after it, and its events change or it was off. Undefined: it wants nothing more.
 */
export function patternsRoutedBy(row: Pick<EndpointRow, 'status' | 'events'>, req: UpdateRequest): readonly string[] | undefined {
  const enabled = req.status === 'enabled' || (req.status === undefined && row.status === 'enabled');
  if (!enabled || (req.events === undefined && row.status === 'enabled')) return undefined;
  return req.events ?? row.events;
}

/**
 * An update of the endpoint as it is (`row`), decided: the fields asked for, a description trimmed
 * (empty: none); enabled again, with why it was off and its failing streak cleared (its pending
 * deliveries resume); disabled by hand at `now`. A status it already has changes nothing of it.
 *
 * `routed` are the event types routed before the write (delivery/routes.ts) for the endpoint as it
 * was read then: an endpoint changed since so that the update makes it want a type not among them
 * cannot be written on that routing, and is gathered again (AppError.asStale).
 */
export function decideEndpointUpdate(row: EndpointRow, req: UpdateRequest, routed: readonly string[], now: Date): EndpointChanges {
  const patterns = patternsRoutedBy(row, req);
  if (patterns && routedTypes(patterns).some((t) => !routed.includes(t)))
    throw new AppError(503, 'service_unavailable', `Webhook endpoint ${row.id} changed meanwhile; retry`).asStale();
  const changes: EndpointChanges = {};
  if (req.url !== undefined) changes.url = req.url;
  if (req.events !== undefined) changes.events = req.events;
  if (req.description !== undefined) changes.description = req.description?.trim() || null;
  if (req.status === 'enabled' && row.status !== 'enabled')
    Object.assign(changes, { status: 'enabled', disabled_reason: null, disabled_at: null, failing_since: null });
  if (req.status === 'disabled' && row.status !== 'disabled')
    Object.assign(changes, { status: 'disabled', disabled_reason: 'manual', disabled_at: now });
  return changes;
}

/** The endpoint as the update stores it: the changes over the row read, at its next version (updated_at is the database's). */
export function updatedEndpoint(row: EndpointRow, changes: EndpointChanges): EndpointRow {
  const { events, ...columns } = changes;
  return { ...row, ...columns, ...(events ? { events: [...events] } : {}), version: row.version + 1 };
}
