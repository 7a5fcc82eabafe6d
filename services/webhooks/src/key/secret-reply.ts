import { type ReplySeal } from '@bo/runtime';
import { webhookSettings } from '../settings';
import { keyRefusals } from './key-refusals';
import { secretBox } from './secrets';

/**
 * The answer of create and rotate_secret, as the record under its Idempotency-Key keeps it: the
 * secret sealed like the endpoint's own (never in the clear in the database), and opened again for a
 * retry, which so gets the same secret. A record sealed under a key no longer configured cannot be
 * opened: its retry is refused, saying how to get a new secret.
 */
export const secretReplySeal: ReplySeal = {
  seal: (body, config) => ({ ...body, secret: secretBox(webhookSettings(config)).seal(String(body['secret'])) }),
  open(body, config) {
    const secret = String(body['secret']);
    // Recorded in the clear before records were sealed (rekey seals those).
    if (secret.startsWith('whsec_')) return body;
    try {
      return { ...body, secret: secretBox(webhookSettings(config)).open(secret) };
    } catch {
      throw keyRefusals.recordedSecretUnreadable();
    }
  },
};
