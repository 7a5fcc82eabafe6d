import { integrations } from '@bo/contracts';
import { filledIn, handler, unlessRefused } from '@bo/runtime';
import { routeBeforeWrite, routedTypes, settleClaim, settlingClaim } from '../delivery/routes';
import { webhookSettings } from '../settings';
import { decideEndpointUpdate, patternsRoutedBy, updatedEndpoint } from './decide-endpoint-update';
import { checkEndpointInput } from './endpoint-input';
import { endpointRecord } from './endpoint.record';
import { endpointAsRead, endpointChangeAlone, endpointRead, lockEndpoint, readEndpoint, updateEndpoint } from './endpoint.repository';

const MESSAGE = 'Webhook endpoint updated successfully';

/**
 * Enabling an endpoint again clears why it was off and its failing streak: its pending deliveries
 * resume. An update that makes an enabled endpoint want types (new events, or enabled again) routes
 * them before its write (delivery/routes.ts), on the endpoint as read first; one changed meanwhile so
 * that it wants more is gathered again (AppError.asStale), and a retryable 503 only if it keeps
 * changing. Disabling routes nothing away at once (the reconcile does).
 *
 * Load → decide → store, optimistic as a rule: the endpoint read with no lock (by the statement that
 * claims the key, when there is one), the update decided on it (decideEndpointUpdate), and stored as
 * one statement with the route claim's settling, only while the endpoint is the row read and the
 * claim live (`alone`); one changed meanwhile goes the locked way (`apply`), which decides again.
 */
export const updateEndpointHandler = handler(integrations.updateEndpoint, {
  readWithClaim: (req, ctx) => endpointRead(ctx.orgId, req.endpoint_id),
  async gather(req, ctx, claimed) {
    await checkEndpointInput(req, ctx.config);
    const loaded = claimed ? endpointAsRead(claimed, req.endpoint_id) : await readEndpoint(ctx.db, ctx.orgId, req.endpoint_id);
    const patterns = patternsRoutedBy(loaded.row, req);
    if (!patterns) return { loaded, routed: [] as string[] };
    const claim = await routeBeforeWrite(ctx.db, ctx.routes, patterns, webhookSettings(ctx.config).WEBHOOKS_BROKER_TIMEOUT_MS);
    return { loaded, claim, routed: routedTypes(patterns) };
  },
  alone: (req, _ctx, { loaded, claim, routed }) => {
    const now = new Date();
    const changes = unlessRefused(() => decideEndpointUpdate(loaded.row, req, routed, now));
    if (!changes) return undefined;
    return {
      ...settlingClaim(endpointChangeAlone(loaded.row, changes, loaded.read), claim),
      events: [],
      // The row's updated_at is the statement's: filled in from it.
      reply: {
        message: MESSAGE,
        endpoint: { ...endpointRecord(updatedEndpoint(loaded.row, changes), now), updated_at: filledIn<string>() },
      },
    };
  },
  async apply(req, ctx, { claim, routed }) {
    const row = await lockEndpoint(ctx.db, ctx.orgId, req.endpoint_id);
    const changes = decideEndpointUpdate(row, req, routed, new Date());
    await settleClaim(ctx.db, claim);
    return { message: MESSAGE, endpoint: endpointRecord(await updateEndpoint(ctx.db, row, changes)) };
  },
});
