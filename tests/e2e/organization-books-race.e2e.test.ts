import { createDb, type Knex } from '@bo/runtime';
import { formatDate } from '@bo/kernel';
import { ok } from '../support/invoicing';
import { eventually, startTestSystem, type TestSystem } from '../support/system';

/**
 * Two concurrent sets of the organization's books (docs/invoicing.md "The books' settings"): set A
 * configures USD and a January lock date in invoicing, set B then configures EUR and February and
 * stores them in the profile, and only then does A store its own. The books hold B's settings, as
 * postings obey them; the profile, its event and every reader of it must say the same.
 *
 * The interleaving is made, not hoped for: a test trigger on the profile's table holds the first
 * set to reach its store (the `ensureProfileRow` insert, before any row lock) on an advisory lock
 * the test holds, until B has answered. The trigger takes a marker row `for update skip locked`, so
 * only the set that reached it first waits and B passes.
 */
describe('organization profile: concurrent sets of the books', () => {
  let sys: TestSystem;
  let partnersDb: Knex;
  let invoicingDb: Knex;
  const HOLD_KEY = 40_417;
  beforeAll(async () => {
    sys = await startTestSystem();
    partnersDb = createDb(sys.databaseUrl, 'partners', 3);
    invoicingDb = createDb(sys.databaseUrl, 'invoicing', 2);
    await partnersDb.raw(`create table partners.test_store_hold (id int primary key)`);
    await partnersDb.raw(
      `create function partners.test_store_hold() returns trigger language plpgsql as $$
       begin
         perform 1 from partners.test_store_hold for update skip locked;
         if found then perform pg_advisory_xact_lock(${HOLD_KEY}); end if;
         return new;
       end $$`,
    );
    await partnersDb.raw(
      `create trigger test_store_hold before insert on partners.organization_profiles
         for each row execute function partners.test_store_hold()`,
    );
  }, 60_000);
  afterAll(async () => {
    await partnersDb?.raw(`drop trigger if exists test_store_hold on partners.organization_profiles`).catch(() => 0);
    await partnersDb?.destroy();
    await invoicingDb?.destroy();
    await sys?.stop();
  });

  const setProfile = (fields: Record<string, unknown>) =>
    sys.post('/organization/setprofile', { org_id: 1, userid: 'e2e', ...fields }, { org: 1 });
  const books = async () => {
    const row = await invoicingDb('organization_settings').where({ org_id: 1 }).first();
    return { default_currency: row?.default_currency ?? null, lock_date: formatDate(row?.lock_date ?? null) };
  };
  const profile = async () => (await ok(sys.post('/organization/getprofile', { org_id: 1 }, { org: 1 }))).body.organization;

  it('leaves the profile saying what the books say when an older configure stores last', async () => {
    await ok(setProfile({ legal_name: 'Race Ltd' }));
    const hold = await partnersDb.transaction();
    try {
      await hold.raw('select pg_advisory_xact_lock(?)', [HOLD_KEY]);
      await partnersDb('test_store_hold').insert({ id: 1 });

      const setA = setProfile({ default_currency: 'USD', lock_date: '2026-01-31' });
      // A has configured the books and waits at its store.
      await eventually(async () => expect(await books()).toEqual({ default_currency: 'USD', lock_date: '2026-01-31' }));
      await eventually(async () => {
        const { rows } = await partnersDb.raw(`select 1 from pg_locks where locktype = 'advisory' and objid = ? and not granted`, [
          HOLD_KEY,
        ]);
        expect(rows).toHaveLength(1);
      });

      const setB = await ok(setProfile({ default_currency: 'EUR', lock_date: '2026-02-28' }));
      expect(setB.body.organization).toMatchObject({ default_currency: 'EUR', lock_date: '2026-02-28' });

      await hold.commit();
      const answerA = await ok(setA);
      // A's answer is the profile as it stands after it: the books as B left them.
      expect(answerA.body.organization).toMatchObject({ default_currency: 'EUR', lock_date: '2026-02-28', legal_name: 'Race Ltd' });
    } finally {
      if (!hold.isCompleted()) await hold.rollback();
    }
    expect(await books()).toEqual({ default_currency: 'EUR', lock_date: '2026-02-28' });
    expect(await profile()).toMatchObject({ default_currency: 'EUR', lock_date: '2026-02-28', legal_name: 'Race Ltd' });
  }, 60_000);
});
