import { integrations } from '@bo/contracts';
import { handler, type BoundHandler } from '@bo/runtime';
import { routeBeforeWrite, settleClaim } from '../delivery/routes';
import { newSigningSecret } from '../domain/signature';
import { webhookSettings } from '../settings';
import { checkEndpointInput } from './endpoint-input';
import { endpointRecord } from './endpoint.record';
import { insertEndpoint } from './endpoint.repository';
import { secretReplySeal } from '../key/secret-reply';
import { secretBox } from '../key/secrets';

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
      const row = await insertEndpoint(ctx.db, {
        org_id: ctx.orgId,
        url: req.url,
        description: req.description ?? null,
        events: req.events,
        secret: secretBox(webhookSettings(ctx.config)).seal(secret),
      });
      return { message: 'Webhook endpoint created successfully', endpoint: endpointRecord(row), secret };
    },
  }),
  seal: secretReplySeal,
};
