import { Webhook } from 'standardwebhooks';
import { newSigningSecret, webhookHeaders } from './signature';

describe('Standard Webhooks signatures', () => {
  const body = JSON.stringify({ id: 'e1', type: 'webhook.ping', data: { message: 'héllo' } });

  it('verify with the reference library', () => {
    const secret = newSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const headers = webhookHeaders([secret], 'e1', body);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('verify with either secret while both sign, and not with another', () => {
    const [next, previous, other] = [newSigningSecret(), newSigningSecret(), newSigningSecret()];
    const headers = webhookHeaders([next, previous], 'e1', body);
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(() => new Webhook(next).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(previous).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(other).verify(body, headers)).toThrow();
    expect(() => new Webhook(next).verify(`${body} `, headers)).toThrow();
  });
});
