import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { integrations } from '@bo/contracts';
import { OPERATION_KEYS, type BaseConfig } from '@bo/runtime';
import { startTestService, type TestService } from '@bo/testkit';
import { SecretBox, rekey, webhooksService } from '../src';
import { secretReplySeal } from '../src/key/secret-reply';

const k1 = { id: 'k1', text: 'the first key of thirty-two characters or more' };
const k2 = { id: 'k2', text: 'the second key of thirty-two characters or more' };

/** A secret as stored before keys had ids: `v1:<iv>:<tag>:<ciphertext>` under the SHA-256 of the key's text. */
function sealedV1(text: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', createHash('sha256').update(text).digest(), iv);
  const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), sealed.toString('base64')].join(':');
}

/**
 * The signing secrets at rest: sealed in the endpoints and in the records of the answers that carry
 * them (create, rotate_secret), which a retry with the same key opens again; and `rekey`, which seals
 * every one of them under the key that seals now, so the others can be removed.
 */
describe('webhook secrets at rest', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService(webhooksService, { WEBHOOKS_SECRET_KEYS: `${k1.id}:${k1.text}`, WEBHOOKS_ALLOW_PRIVATE: '1' });
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
  });

  type Answer = { ok: boolean; body: { secret: string; endpoint: { id: number } } };
  const write = async (action: string, payload: Record<string, unknown>, key: string) =>
    (await svc.call(`webhooks.endpoint.${action}`, { userid: 'u1', action, ...payload }, 1, { operationKey: key })) as unknown as Answer;
  const recorded = async (key: string) => {
    const row = await svc.db(OPERATION_KEYS).where({ org_id: 1, key }).first<{ reply: string }>('reply');
    return (JSON.parse(row.reply) as { body: { secret: string } }).body.secret;
  };
  const stored = async () => {
    const endpoints = await svc
      .db('endpoints')
      .orderBy('id')
      .select<Array<{ secret: string; previous_secret: string | null }>>('secret', 'previous_secret');
    return [
      ...endpoints.flatMap((e) => [e.secret, e.previous_secret ?? []]).flat(),
      await recorded('c1'),
      await recorded('r1'),
      await recorded('legacy'),
    ];
  };

  it('keeps the secret of an answer sealed in its record, and answers a retry with the same secret', async () => {
    const made = await write('create', { url: 'https://127.0.0.1/in', events: ['partners.*'] }, 'c1');
    expect(made).toMatchObject({ ok: true, body: { secret: expect.stringMatching(/^whsec_/) } });
    const rotated = await write('rotate_secret', { endpoint_id: made.body.endpoint.id }, 'r1');
    for (const [key, answer] of [
      ['c1', made],
      ['r1', rotated],
    ] as const) {
      const sealed = await recorded(key);
      expect(sealed).toMatch(/^v2:k1:/);
      expect(sealed).not.toContain(answer.body.secret.slice('whsec_'.length));
    }
    expect(await write('create', { url: 'https://127.0.0.1/in', events: ['partners.*'] }, 'c1')).toEqual(made);
    expect(await write('rotate_secret', { endpoint_id: made.body.endpoint.id }, 'r1')).toEqual(rotated);
  });

  it('seals every stored secret under the first key on rekey, those from before key ids and sealed answers included', async () => {
    // An endpoint sealed before key ids, and an answer recorded in the clear before answers were sealed.
    await svc
      .db('endpoints')
      .insert({ org_id: 1, url: 'https://127.0.0.1/old', events: JSON.stringify(['*']), secret: sealedV1(k1.text, 'whsec_old') });
    const reply = { ok: true, status: 200, body: { message: 'Webhook endpoint created successfully', secret: 'whsec_clear' } };
    await svc.db(OPERATION_KEYS).insert({
      org_id: 1,
      key: 'legacy',
      operation: integrations.createEndpoint.name,
      request_hash: 'x'.repeat(64),
      status: 200,
      reply: JSON.stringify(reply),
    });
    const before = (await stored()).map((s) => (s.startsWith('whsec_') ? s : new SecretBox([k1]).open(s)));

    expect(await rekey(svc.db, new SecretBox([k2, k1]))).toEqual({ endpoints: 2, records: 3, unreadable: [] });
    const after = await stored();
    expect(after.every((s) => s.startsWith('v2:k2:'))).toBe(true);
    // Opened with the new key alone: the same secrets.
    expect(after.map((s) => new SecretBox([k2]).open(s))).toEqual(before);
    expect(await rekey(svc.db, new SecretBox([k2, k1]))).toEqual({ endpoints: 0, records: 0, unreadable: [] });
  });

  it('names what no key given opens, and leaves it as it is', async () => {
    const k3 = { id: 'k3', text: 'a third key of thirty-two characters or more' };
    const done = await rekey(svc.db, new SecretBox([k3]));
    expect(done).toMatchObject({ endpoints: 0, records: 0 });
    expect(done.unreadable).toContain('endpoint 1: sealed under key "k2", which WEBHOOKS_SECRET_KEYS does not hold');
    expect((await stored()).every((s) => s.startsWith('v2:k2:'))).toBe(true);
  });

  it('refuses a retry whose recorded secret no key opens any more, saying how to get a new one', () => {
    const config = { WEBHOOKS_SECRET_KEYS: [k1] } as unknown as BaseConfig;
    const sealed = secretReplySeal.seal({ message: 'done', secret: 'whsec_x' }, { WEBHOOKS_SECRET_KEYS: [k2] } as unknown as BaseConfig);
    expect(() => secretReplySeal.open(sealed, config)).toThrow(
      expect.objectContaining({
        status: 400,
        code: 'invalid_state',
        refusal: 'key.recordedSecretUnreadable',
        message: expect.stringContaining('rotate_secret gives the endpoint a new one'),
      }),
    );
  });
});
