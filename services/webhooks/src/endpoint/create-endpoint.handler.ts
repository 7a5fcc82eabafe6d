import { integrations } from '@bo/contracts';
import { filledIn, handler, type BaseConfig, type BoundHandler } from '@bo/runtime';
import { routeBeforeWrite, settleClaim, settlingClaim } from '../delivery/routes';
import { newSigningSecret } from '../domain/signature';
import { webhookSettings } from '../settings';
import { decideNewEndpoint, newEndpointAsStored } from './decide-new-endpoint';
import { checkEndpointInput } from './endpoint-input';
import { endpointRecord } from './endpoint.record';
import { endpointInsertAlone, insertEndpoint } from './endpoint.repository';
import { secretReplySeal } from '../key/secret-reply';
import { secretBox } from '../key/secrets';

const MESSAGE = 'Webhook endpoint created successfully';

/**
 * The target is checked (a DNS lookup) and the event types routed to the webhooks consumer before
 * the write (delivery/routes.ts), so no event published once the endpoint is visible misses it. The
 * secret is answered once, and sealed in the record kept under the key (secret-reply.ts).
 *
 * Decide → store: a new endpoint decides on nothing stored (decideNewEndpoint), so, as a rule, its
 * insert and its route claim's settling are one statement (`alone`), which stands only while the
 * claim is live well past it; else the locked way answers (`apply`: settleClaim's retryable 503).
 */
export const createEndpointHandler: BoundHandler = {
  ...handler(integrations.createEndpoint, {
    async gather(req, ctx) {
      await checkEndpointInput(req, ctx.config);
      return routeBeforeWrite(ctx.db, ctx.routes, req.events, webhookSettings(ctx.config).WEBHOOKS_BROKER_TIMEOUT_MS);
    },
    alone: (req, ctx, claim) => {
      const { secret, row } = newEndpoint(req, ctx.orgId, ctx.config);
      // The row's id and times are the statement's: filled in from it.
      const asStored = endpointRecord(newEndpointAsStored(row, 0, new Date()));
      const endpoint = { ...asStored, id: filledIn<number>(), created_at: filledIn<string>(), updated_at: filledIn<string>() };
      return { ...settlingClaim(endpointInsertAlone(row), claim), events: [], reply: { message: MESSAGE, endpoint, secret } };
    },
    async apply(req, ctx, claim) {
      await settleClaim(ctx.db, claim);
      const { secret, row } = newEndpoint(req, ctx.orgId, ctx.config);
      return { message: MESSAGE, endpoint: endpointRecord(await insertEndpoint(ctx.db, row)), secret };
    },
  }),
  seal: secretReplySeal,
};

/** A new signing secret, in the clear for the reply, and the endpoint that stores it sealed. */
function newEndpoint(req: Parameters<typeof decideNewEndpoint>[0], orgId: number, config: BaseConfig) {
  const secret = newSigningSecret();
  return { secret, row: decideNewEndpoint(req, orgId, secretBox(webhookSettings(config)).seal(secret)) };
}
