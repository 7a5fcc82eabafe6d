import { integrations } from '@bo/contracts';
import { handler, type BoundHandler } from '@bo/runtime';
import { routeEndpoint } from '../delivery/routes';
import { newSigningSecret } from '../domain/signature';
import { webhookSettings } from '../settings';
import { checkEndpointInput } from './endpoint-input';
import { endpointRecord, type EndpointRow } from './endpoint.record';
import { secretReplySeal } from '../keys/secret-reply';
import { secretBox } from '../keys/secrets';

/**
 * The target is checked (a DNS lookup) before the transaction; the secret is answered once, and
 * sealed in the record kept under the key (secret-reply.ts). Its event types are routed to the
 * webhooks consumer before the endpoint commits (delivery/routes.ts), so no event published once it
 * is visible misses it.
 */
export const createEndpointHandler: BoundHandler = {
  ...handler(integrations.createEndpoint, {
    gather: (req, ctx) => checkEndpointInput(req, ctx.config),
    async apply(req, ctx) {
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
      await routeEndpoint(ctx.db, ctx.routes, req.events);
      return { message: 'Webhook endpoint created successfully', endpoint: endpointRecord(row as EndpointRow), secret };
    },
  }),
  seal: secretReplySeal,
};
