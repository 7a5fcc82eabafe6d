import { integrations } from '@bo/contracts';
import { filledIn, handler, loadedUnlessRefused, type BaseConfig, type BoundHandler } from '@bo/runtime';
import { newSigningSecret } from '../domain/signature';
import { webhookSettings } from '../settings';
import { decideRotation } from './decide-rotation';
import { endpointRecord, type EndpointRow } from './endpoint.record';
import { endpointChangeAlone, lockEndpoint, readEndpoint, updateEndpoint } from './endpoint.repository';
import { secretReplySeal } from '../key/secret-reply';
import { secretBox } from '../key/secrets';

const MESSAGE = 'Webhook signing secret rotated successfully';

/**
 * A new secret signs from now on; the one it replaces keeps signing beside it for
 * WEBHOOKS_ROTATION_OVERLAP_MS (decideRotation). Load → decide → store, optimistic as a rule: the
 * endpoint read with no lock, and the rotation stored as one statement only while it is the row read
 * (`alone`); one changed meanwhile, or not found, goes the locked way (`apply`).
 */
export const rotateSecretHandler: BoundHandler = {
  ...handler(integrations.rotateSecret, {
    alone: async (req, ctx) => {
      const loaded = await loadedUnlessRefused(readEndpoint(ctx.db, ctx.orgId, req.endpoint_id));
      if (!loaded) return undefined;
      const { secret, rotation } = rotate(loaded.row, ctx.config);
      const asStored = { ...loaded.row, ...rotation, version: loaded.row.version + 1 };
      return {
        ...endpointChangeAlone(loaded.row, rotation, loaded.read),
        events: [],
        // The row's updated_at is the statement's: filled in from it.
        reply: { message: MESSAGE, endpoint: { ...endpointRecord(asStored), updated_at: filledIn<string>() }, secret },
      };
    },
    apply: async (req, ctx) => {
      const row = await lockEndpoint(ctx.db, ctx.orgId, req.endpoint_id);
      const { secret, rotation } = rotate(row, ctx.config);
      return { message: MESSAGE, endpoint: endpointRecord(await updateEndpoint(ctx.db, row, { ...rotation })), secret };
    },
  }),
  seal: secretReplySeal,
};

/** A new secret, in the clear for the reply, and the rotation that stores it sealed. */
function rotate(row: EndpointRow, config: BaseConfig) {
  const settings = webhookSettings(config);
  const secret = newSigningSecret();
  return { secret, rotation: decideRotation(row, secretBox(settings).seal(secret), new Date(), settings.WEBHOOKS_ROTATION_OVERLAP_MS) };
}
