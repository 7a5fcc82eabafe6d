import { createDb } from '@bo/runtime';
import { createTestDatabase, type TestDatabase } from '@bo/testkit';
import { DEVELOPMENT_SECRET_KEYS, SecretBox } from '@bo/webhooks';
import { webhooksCommand } from './webhooks-command';

/** `npm run webhooks -- rekey` over a database of its own: its answers, exit codes and effect. */
describe('npm run webhooks', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  const run = async (argv: string[], keys: string, developmentMode = false) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await webhooksCommand(argv, database.url, keys, developmentMode, { out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, out, err };
  };
  const k1 = 'k1:the first key of thirty-two characters or more';
  const k2 = 'k2:the second key of thirty-two characters or more';

  it('answers its usage, or what is wrong with the keys, with exit code 2', async () => {
    expect(await run(['rotate'], k1)).toMatchObject({ code: 2, err: [expect.stringMatching(/^usage: npm run webhooks -- rekey/)] });
    expect(await run(['rekey'], 'k1:short')).toMatchObject({
      code: 2,
      err: ['WEBHOOKS_SECRET_KEYS key "k1" must be at least 32 characters of random text'],
    });
    expect(await run(['rekey'], DEVELOPMENT_SECRET_KEYS)).toMatchObject({ code: 2, err: [expect.stringContaining('development key')] });
  });

  it('seals the stored secrets under the first key and says which keys can go', async () => {
    expect(await run(['rekey'], k1)).toMatchObject({ code: 0 });
    const db = createDb(database.url, 'webhooks', 1);
    try {
      const sealed = new SecretBox([{ id: 'k1', text: k1.slice(3) }]).seal('whsec_abc');
      await db('endpoints').insert({ org_id: 1, url: 'https://127.0.0.1/x', events: JSON.stringify(['*']), secret: sealed });
      expect(await run(['rekey'], `${k2},${k1}`)).toEqual({
        code: 0,
        out: [
          'Sealed under key "k2": 1 endpoint(s), 0 recorded answer(s).',
          'Every stored secret is under key "k2": "k1" can be removed from WEBHOOKS_SECRET_KEYS.',
        ],
        err: [],
      });
      expect(await db('endpoints').pluck('secret')).toEqual([expect.stringMatching(/^v2:k2:/)]);
      expect(await run(['rekey'], k1)).toMatchObject({
        code: 1,
        err: [expect.stringContaining('1 secret(s)'), expect.stringContaining('"k2"')],
      });
    } finally {
      await db.destroy();
    }
  });
});
