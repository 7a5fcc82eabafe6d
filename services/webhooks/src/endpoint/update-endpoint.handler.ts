import { integrations } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { routeEndpoint } from '../delivery/routes';
import { checkEndpointInput } from './endpoint-input';
import { endpointRecord, lockEndpoint, type EndpointRow } from './endpoint.record';

/**
 * Enabling an endpoint again clears why it was off and its failing streak: its pending deliveries
 * resume. An enabled endpoint whose events change, or one enabled again, has its types routed before
 * it commits (delivery/routes.ts); disabling routes nothing away at once (the reconcile does).
 */
export const updateEndpointHandler = handler(integrations.updateEndpoint, {
  gather: (req, ctx) => checkEndpointInput(req, ctx.config),
  async apply(req, ctx) {
    const row = await lockEndpoint(ctx.db, ctx.orgId, req.endpoint_id);
    const changes: Record<string, unknown> = {};
    if (req.url !== undefined) changes['url'] = req.url;
    if (req.events !== undefined) changes['events'] = JSON.stringify(req.events);
    if (req.description !== undefined) changes['description'] = req.description?.trim() || null;
    if (req.status === 'enabled' && row.status !== 'enabled')
      Object.assign(changes, { status: 'enabled', disabled_reason: null, disabled_at: null, failing_since: null });
    if (req.status === 'disabled' && row.status !== 'disabled')
      Object.assign(changes, { status: 'disabled', disabled_reason: 'manual', disabled_at: ctx.db.fn.now() });
    const [updated] = (await ctx
      .db('endpoints')
      .where({ id: row.id })
      .update({ ...changes, version: row.version + 1, updated_at: ctx.db.fn.now() })
      .returning('*')) as EndpointRow[];
    if (updated?.status === 'enabled' && (changes['events'] !== undefined || changes['status'] === 'enabled'))
      await routeEndpoint(ctx.db, ctx.routes, updated.events);
    return { message: 'Webhook endpoint updated successfully', endpoint: endpointRecord(updated as EndpointRow) };
  },
});
