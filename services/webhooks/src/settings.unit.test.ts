import { DEVELOPMENT_SECRET_KEYS, parseSealingKeys, webhookSettingsSchema } from './settings';

const KEYS = `k2:${'b'.repeat(32)},k1:${'a'.repeat(32)}`;

describe('webhook settings by default', () => {
  const defaults = webhookSettingsSchema.parse({ WEBHOOKS_SECRET_KEYS: KEYS });

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

  it('read the keys with their ids, the first sealing', () => {
    expect(defaults.WEBHOOKS_SECRET_KEYS).toEqual([
      { id: 'k2', text: 'b'.repeat(32) },
      { id: 'k1', text: 'a'.repeat(32) },
    ]);
  });
});

describe('webhook settings refuse to start', () => {
  const problem = (env: Record<string, string>) => {
    const parsed = webhookSettingsSchema.safeParse(env);
    return parsed.success ? undefined : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
  };

  it('without keys, or with the single key of before, saying where it went', () => {
    expect(problem({})).toMatch(/^WEBHOOKS_SECRET_KEYS: is required: <id>:<32\+ characters/);
    expect(problem({ WEBHOOKS_SECRET_KEYS: KEYS, WEBHOOKS_SECRET_KEY: 'a'.repeat(32) })).toMatch(
      /^WEBHOOKS_SECRET_KEY: is replaced by WEBHOOKS_SECRET_KEYS/,
    );
  });

  it.each([
    ['a'.repeat(32), /an id is 1 to 32 letters/],
    [`k1:${'a'.repeat(31)}`, /key "k1" must be at least 32 characters/],
    [`k1:${'a'.repeat(32)},k1:${'b'.repeat(32)}`, /key id "k1" is given twice/],
    [`k 1:${'a'.repeat(32)}`, /an id is 1 to 32 letters/],
  ])('with keys %s', (keys, message) => expect(problem({ WEBHOOKS_SECRET_KEYS: keys })).toMatch(message));

  it('with the published development key outside development mode', () => {
    const mode = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    try {
      expect(problem({ WEBHOOKS_SECRET_KEYS: DEVELOPMENT_SECRET_KEYS })).toMatch(/^WEBHOOKS_SECRET_KEYS: holds the development key/);
    } finally {
      process.env.NODE_ENV = mode;
    }
    expect(problem({ WEBHOOKS_SECRET_KEYS: DEVELOPMENT_SECRET_KEYS })).toBeUndefined();
    expect(parseSealingKeys(DEVELOPMENT_SECRET_KEYS, false)).toMatch(/development key published in this repository/);
    expect(parseSealingKeys(`mine:${'c'.repeat(40)},${DEVELOPMENT_SECRET_KEYS}`, false)).toMatch(/development key/);
    expect(parseSealingKeys(DEVELOPMENT_SECRET_KEYS, true)).toEqual([{ id: 'dev', text: expect.any(String) }]);
  });

  it('with nameservers that are not addresses', () => {
    expect(problem({ WEBHOOKS_SECRET_KEYS: KEYS, WEBHOOKS_DNS_SERVERS: 'dns.example.com' })).toMatch(/^WEBHOOKS_DNS_SERVERS: must be IP/);
    expect(webhookSettingsSchema.parse({ WEBHOOKS_SECRET_KEYS: KEYS, WEBHOOKS_DNS_SERVERS: '127.0.0.1:5353, ::1' })).toMatchObject({
      WEBHOOKS_DNS_SERVERS: ['127.0.0.1:5353', '::1'],
    });
  });
});
