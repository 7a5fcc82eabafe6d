import { integrations } from '@bo/contracts';
import { AppError, handler } from '@bo/runtime';
import { routeBeforeWrite, routedTypes, settleClaim } from '../delivery/routes';
import { webhookSettings } from '../settings';
import { checkEndpointInput } from './endpoint-input';
import { endpointRecord, type EndpointRow } from './endpoint.record';
import { findEndpoint, lockEndpoint, updateEndpoint } from './endpoint.repository';

type Change = { events?: readonly string[]; status?: 'enabled' | 'disabled' };

/** The patterns an update makes an endpoint want routed anew: when it is enabled after it, and its events change or it was off. */
function patternsRoutedBy(row: Pick<EndpointRow, 'status' | 'events'>, req: Change): readonly string[] | undefined {
  const enabled = req.status === 'enabled' || (req.status === undefined && row.status === 'enabled');
  if (!enabled || (req.events === undefined && row.status === 'enabled')) return undefined;
  return req.events ?? row.events;
}

/**
 * Enabling an endpoint again clears why it was off and its failing streak: its pending deliveries
 * resume. An update that makes an enabled endpoint want types (new events, or enabled again) routes
 * them before its transaction (delivery/routes.ts), reading the endpoint first; one changed
 * meanwhile so that it wants more is gathered again (AppError.asStale), and a retryable 503 only if it keeps changing. Disabling routes nothing away at once (the
 * reconcile does).
 */
export const updateEndpointHandler = handler(integrations.updateEndpoint, {
  async gather(req, ctx) {
    await checkEndpointInput(req, ctx.config);
    const patterns = patternsRoutedBy(await findEndpoint(ctx.db, ctx.orgId, req.endpoint_id), req);
    if (!patterns) return { routed: [] as string[] };
    const claim = await routeBeforeWrite(ctx.db, ctx.routes, patterns, webhookSettings(ctx.config).WEBHOOKS_BROKER_TIMEOUT_MS);
    return { claim, routed: routedTypes(patterns) };
  },
  async apply(req, ctx, { claim, routed }) {
    const row = await lockEndpoint(ctx.db, ctx.orgId, req.endpoint_id);
    const patterns = patternsRoutedBy(row, req);
    if (patterns && routedTypes(patterns).some((t) => !routed.includes(t)))
      throw new AppError(503, 'service_unavailable', `Webhook endpoint ${row.id} changed meanwhile; retry`).asStale();
    await settleClaim(ctx.db, claim);
    const changes: Record<string, unknown> = {};
    if (req.url !== undefined) changes['url'] = req.url;
    if (req.events !== undefined) changes['events'] = JSON.stringify(req.events);
    if (req.description !== undefined) changes['description'] = req.description?.trim() || null;
    if (req.status === 'enabled' && row.status !== 'enabled')
      Object.assign(changes, { status: 'enabled', disabled_reason: null, disabled_at: null, failing_since: null });
    if (req.status === 'disabled' && row.status !== 'disabled')
      Object.assign(changes, { status: 'disabled', disabled_reason: 'manual', disabled_at: new Date() });
    const updated = await updateEndpoint(ctx.db, row, changes);
    return { message: 'Webhook endpoint updated successfully', endpoint: endpointRecord(updated) };
  },
});
