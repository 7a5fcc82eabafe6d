import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { dataDirFor, startEmbeddedPostgres, type EmbeddedDatabase } from '../src/embedded';
import { freePort } from '../src/free-port';

/**
 * `npm start`'s own PostgreSQL, started from a clone in a private (mode 700) directory: as root the
 * server runs as the postgres user, who cannot enter that directory, so its data must live where
 * that user can reach it. Every failure is one sentence saying what to do.
 */
describe('embedded PostgreSQL', () => {
  const home = mkdtempSync(join(tmpdir(), 'bo-embedded-'));
  const clone = join(home, 'clone');
  let db: EmbeddedDatabase | undefined;
  let port: number;
  beforeAll(async () => {
    // The clone is private; its parent is open, as a home directory's parent is.
    chmodSync(home, 0o755);
    mkdirSync(clone, { mode: 0o700, recursive: true });
    port = await freePort();
  });
  afterAll(async () => {
    await db?.stop();
    for (const root of [clone, join(home, 'other')]) {
      const data = dataDirFor(root);
      if (!data.startsWith(home)) rmSync(join(data, '..'), { recursive: true, force: true });
    }
    rmSync(home, { recursive: true, force: true });
  });

  it('starts from a private directory, serves, stops and starts again on the same data', async () => {
    db = await startEmbeddedPostgres(clone, port);
    if (process.getuid?.() === 0) expect(db.dataDir.startsWith(clone)).toBe(false);
    const client = new pg.Client(db.url);
    await client.connect();
    await client.query('create table kept (id int); insert into kept values (42)');
    await client.end();
    await db.stop();
    db = await startEmbeddedPostgres(clone, port);
    const again = new pg.Client(db.url);
    await again.connect();
    expect((await again.query('select id from kept')).rows).toEqual([{ id: 42 }]);
    await again.end();
  }, 60_000);

  it('says the port is taken instead of talking to whoever holds it', async () => {
    await expect(startEmbeddedPostgres(join(home, 'other'), port)).rejects.toThrow(
      `Port ${port} is already in use, so the embedded PostgreSQL cannot listen on it: stop what uses it, or set EMBEDDED_PG_PORT to a free port.`,
    );
  });

  it('refuses a data directory made by another major version, saying what to do', async () => {
    const old = join(home, 'old');
    mkdirSync(join(old, '.data', 'postgres'), { recursive: true });
    writeFileSync(join(old, '.data', 'postgres', 'PG_VERSION'), '15\n');
    const outcome = await startEmbeddedPostgres(old, await freePort()).catch((err: Error) => err);
    if (!(outcome instanceof Error)) await outcome.stop();
    expect(outcome).toEqual(
      expect.objectContaining({
        message: expect.stringMatching(/was made by PostgreSQL 15, but the embedded PostgreSQL is \d+: move it away/),
      }),
    );
  });
});
