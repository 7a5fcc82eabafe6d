import fc from 'fast-check';
import { createDb, type Knex } from '@bo/runtime';
import { createTestDatabase, type TestDatabase } from '@bo/testkit';
import { matches, matchesAnySql } from '../src/domain/patterns';

/** The consumer matches endpoints to events in SQL, the API checks patterns in TypeScript: one rule, so they must agree. */
describe('an endpoint pattern in SQL', () => {
  let database: TestDatabase;
  let db: Knex;
  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(database.url, 'public', 1);
  });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });

  const sqlMatches = async (cases: Array<{ patterns: string[]; type: string }>): Promise<boolean[]> => {
    const { rows } = await db.raw<{ rows: Array<{ m: boolean }> }>(
      `select ${matchesAnySql('c.patterns', 'c.type')} as m
       from jsonb_to_recordset(?::jsonb) as c(patterns jsonb, type text, i int) order by c.i`,
      [JSON.stringify(cases.map((c, i) => ({ ...c, i })))],
    );
    return rows.map((r) => r.m);
  };

  it('matches what matchesAny matches, for the documented forms', async () => {
    const cases = [
      { patterns: ['*'], type: 'invoicing.invoice.validated' },
      { patterns: ['invoicing.*'], type: 'invoicing.invoice.validated' },
      { patterns: ['invoicing.*'], type: 'invoicingx.invoice' },
      { patterns: ['invoicing.invoice.*'], type: 'invoicing.invoice' },
      { patterns: ['invoicing.invoice.validated'], type: 'invoicing.invoice.validated' },
      { patterns: ['invoicing.invoice.validated'], type: 'invoicing.invoice.paid' },
      { patterns: ['partners.*', 'invoicing.invoice.paid'], type: 'invoicing.invoice.paid' },
      { patterns: [], type: 'invoicing.invoice.paid' },
    ];
    expect(await sqlMatches(cases)).toEqual([true, true, false, false, true, false, true, false]);
  });

  it('agrees with matches on random patterns and types, LIKE metacharacters included', async () => {
    const segment = fc.string({ unit: fc.constantFrom('a', 'b', '%', '_', '\\'), minLength: 1, maxLength: 3 });
    const type = fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => s.join('.'));
    const pattern = fc.oneof(
      fc.constant('*'),
      type,
      type.map((t) => `${t}.*`),
    );
    const seed = Number(process.env['FC_SEED'] ?? Date.now() % 2_147_483_647);
    const cases = fc.sample(fc.record({ patterns: fc.array(pattern, { maxLength: 3 }), type }), { numRuns: 500, seed });
    const got = await sqlMatches(cases);
    const wrong = cases.filter((c, i) => got[i] !== c.patterns.some((p) => matches(p, c.type)));
    if (wrong.length) console.log(`pattern seed ${seed} (replay with FC_SEED=${seed})`);
    expect(wrong).toEqual([]);
  });
});
