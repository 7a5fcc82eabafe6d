import { SecretBox } from '../domain/secret-box';

const boxes = new Map<string, SecretBox>();

/** The box sealing the secrets under WEBHOOKS_SECRET_KEY, made once per key. */
export function secretBox(settings: { WEBHOOKS_SECRET_KEY: string }): SecretBox {
  let box = boxes.get(settings.WEBHOOKS_SECRET_KEY);
  if (!box) {
    box = new SecretBox(settings.WEBHOOKS_SECRET_KEY);
    boxes.set(settings.WEBHOOKS_SECRET_KEY, box);
  }
  return box;
}
