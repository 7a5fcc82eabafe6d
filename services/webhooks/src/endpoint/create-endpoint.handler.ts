import { integrations } from '@bo/contracts';
import { handler, type BoundHandler } from '@bo/runtime';
import { routeBeforeWrite, settleClaim } from '../delivery/routes';
import { newSigningSecret } from '../domain/signature';
import { webhookSettings } from '../settings';
import { checkEndpointInput } from './endpoint-input';
import { endpointRecord, type EndpointRow } from './endpoint.record';
import { secretReplySeal } from '../keys/secret-reply';
import { secretBox } from '../keys/secrets';

/**
 * The target is checked (a DNS lookup) and the event types routed to the webhooks consumer before
 * the transaction (delivery/routes.ts), so no event published once the endpoint is visible misses
 * it. The secret is answered once, and sealed in the record kept under the key (secret-reply.ts).
 */
export const createEndpointHandler: BoundHandler = {
  ...handler(integrations.createEndpoint, {
    async gather(req, ctx) {
      await checkEndpointInput(req, ctx.config);
      return routeBeforeWrite(ctx.db, ctx.routes, req.events, webhookSettings(ctx.config).WEBHOOKS_BROKER_TIMEOUT_MS);
    },
    async apply(req, ctx, claim) {
      await settleClaim(ctx.db, claim);
      const secret = newSigningSecret();
      const [row] = (await ctx
        .db('endpoints')
        .insert({
          org_id: ctx.orgId,
          url: req.url,
          description: req.description ?? null,
          events: JSON.stringify(req.events),
          secret: secretBox(webhookSettings(ctx.config)).seal(secret),
        })
        .returning('*')) as EndpointRow[];
      return { message: 'Webhook endpoint created successfully', endpoint: endpointRecord(row as EndpointRow), secret };
    },
  }),
  seal: secretReplySeal,
};
