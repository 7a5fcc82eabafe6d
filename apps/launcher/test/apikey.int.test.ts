import { hashKey } from '@bo/gateway';
import { createDb } from '@bo/runtime';
import * as testing from '@bo/testkit';
import { apiKeyCommand } from '../src/apikey-command';

describe('apikey command', () => {
  let database: testing.TestDatabase;
  beforeAll(async () => {
    database = await testing.createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  const run = async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await apiKeyCommand(argv, database.url, { out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, out, err };
  };

  it('creates a key for an organization, printed alone on the last line, stored only hashed', async () => {
    const { code, out } = await run('create', '--org', '42', '--label', 'books');
    expect(code).toBe(0);
    const key = out[out.length - 1] as string;
    expect(key).toMatch(/^bo_[\w-]{40,}$/);
    const db = createDb(database.url, 'gateway', 1);
    try {
      const rows = await db('api_keys').select('org_id', 'key_hash', 'label');
      expect(rows).toEqual([{ org_id: 42, key_hash: hashKey(key), label: 'books' }]);
      expect(JSON.stringify(rows)).not.toContain(key);
    } finally {
      await db.destroy();
    }
    expect(await run('revoke', key)).toMatchObject({ code: 0, out: ['revoked'] });
    expect(await run('revoke', key)).toMatchObject({ code: 1, out: ['no live key matches'] });
  });

  it('refuses a missing or bad organization and unknown commands with the usage', async () => {
    for (const argv of [['create'], ['create', '--org', 'x'], ['create', '--org', '0'], ['list'], ['revoke']]) {
      const { code, err } = await run(...argv);
      expect(code).toBe(2);
      expect(err.join('\n')).toContain('usage: npm run apikey');
    }
  });
});
