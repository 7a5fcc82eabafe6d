import { SecretBox, type SealingKey } from '../domain/secret-box';

const boxes = new WeakMap<readonly SealingKey[], SecretBox>();

/** The box sealing the secrets under WEBHOOKS_SECRET_KEYS (the first key seals), made once per settings. */
export function secretBox(settings: { WEBHOOKS_SECRET_KEYS: readonly SealingKey[] }): SecretBox {
  let box = boxes.get(settings.WEBHOOKS_SECRET_KEYS);
  if (!box) {
    box = new SecretBox(settings.WEBHOOKS_SECRET_KEYS);
    boxes.set(settings.WEBHOOKS_SECRET_KEYS, box);
  }
  return box;
}
