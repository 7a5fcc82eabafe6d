import { integrations } from '@bo/contracts';
import { handler, type BoundHandler } from '@bo/runtime';
import { newSigningSecret } from '../domain/signature';
import { webhookSettings } from '../settings';
import { endpointRecord } from './endpoint.record';
import { lockEndpoint, updateEndpoint } from './endpoint.repository';
import { secretReplySeal } from '../key/secret-reply';
import { secretBox } from '../key/secrets';

/**
 * A new secret signs from now on; the one it replaces keeps signing beside it (a second `v1,`
 * signature) for WEBHOOKS_ROTATION_OVERLAP_MS, so a receiver can switch without losing a delivery.
 * A second rotation within the overlap drops the oldest secret.
 */
export const rotateSecretHandler: BoundHandler = {
  ...handler(integrations.rotateSecret, async (req, ctx) => {
    const settings = webhookSettings(ctx.config);
    const row = await lockEndpoint(ctx.db, ctx.orgId, req.endpoint_id);
    const secret = newSigningSecret();
    const updated = await updateEndpoint(ctx.db, row, {
      secret: secretBox(settings).seal(secret),
      previous_secret: row.secret,
      previous_secret_expires_at: new Date(Date.now() + settings.WEBHOOKS_ROTATION_OVERLAP_MS),
    });
    return { message: 'Webhook signing secret rotated successfully', endpoint: endpointRecord(updated), secret };
  }),
  seal: secretReplySeal,
};
