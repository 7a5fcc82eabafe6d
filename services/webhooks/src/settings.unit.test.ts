import { webhookSettingsSchema } from './settings';

describe('webhook settings by default', () => {
  const defaults = webhookSettingsSchema.parse({ WEBHOOKS_SECRET_KEY: 'k'.repeat(32) });

  it('time an attempt out after 10 s, read 64 kB of an answer at most, and take https to public addresses only', () => {
    expect(defaults).toMatchObject({
      WEBHOOKS_TIMEOUT_MS: 10_000,
      WEBHOOKS_MAX_RESPONSE_BYTES: 65_536,
      WEBHOOKS_ALLOW_HTTP: false,
      WEBHOOKS_ALLOW_PRIVATE: false,
    });
  });

  it('disable an endpoint failing for 3 days, and let the previous secret sign for 24 h after a rotation', () => {
    expect(defaults.WEBHOOKS_DISABLE_AFTER_MS).toBe(3 * 24 * 3600_000);
    expect(defaults.WEBHOOKS_ROTATION_OVERLAP_MS).toBe(24 * 3600_000);
  });

  it('give one organization 16 of the 32 attempts at once, and a lookup 2 s with the system nameservers', () => {
    expect(defaults).toMatchObject({
      WEBHOOKS_MAX_IN_FLIGHT: 32,
      WEBHOOKS_PER_ORGANIZATION: 16,
      WEBHOOKS_DNS_TIMEOUT_MS: 2000,
      WEBHOOKS_DNS_SERVERS: [],
    });
  });

  it('refuse to start without a secret key', () => {
    expect(webhookSettingsSchema.safeParse({}).success).toBe(false);
  });

  it('refuse nameservers that are not addresses, and take them with a port', () => {
    expect(webhookSettingsSchema.safeParse({ WEBHOOKS_SECRET_KEY: 'k'.repeat(32), WEBHOOKS_DNS_SERVERS: 'dns.example.com' }).success).toBe(
      false,
    );
    expect(webhookSettingsSchema.parse({ WEBHOOKS_SECRET_KEY: 'k'.repeat(32), WEBHOOKS_DNS_SERVERS: '127.0.0.1:5353, ::1' })).toMatchObject(
      {
        WEBHOOKS_DNS_SERVERS: ['127.0.0.1:5353', '::1'],
      },
    );
  });
});
