import { defineRefusals } from '@bo/runtime';

/** Every refusal of the key module (the keys that seal endpoints' secrets), by name. */
export const keyRefusals = defineRefusals('key', {
  /**
   * A retry of a create or rotate_secret whose recorded answer holds a secret sealed under a key no
   * longer in WEBHOOKS_SECRET_KEYS: it cannot be answered again.
   */
  recordedSecretUnreadable: () => ({
    code: 'invalid_state',
    message:
      'This request was answered before, but the secret of that answer can no longer be read (the key that sealed it is no longer in WEBHOOKS_SECRET_KEYS): rotate_secret gives the endpoint a new one',
  }),
});
