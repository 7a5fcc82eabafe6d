import pg from 'pg';
import { Api } from '../../tools/bench/src/api';
import { Fixtures } from '../../tools/bench/src/fixtures';
import { instrumentPg, type CountedStatement, type StatementCount } from '../../tools/bench/src/statements-counter';
import {
  STATEMENT_BUDGETS,
  countedWrites,
  measureWrites,
  settledOf,
  statementTable,
  type WriteName,
} from '../../tools/bench/src/statements-writes';
import { startTestSystem, type TestSystem } from '../support/system';

/**
 * The statement budget of every write (issue 46), checked on every run rather than timed: the
 * statements each write costs the whole system (gateway, services, their consumers and outbox
 * publishers), counted in node-postgres's client for the test system's own database
 * (statements-counter.ts), over REQUESTS requests of each, one at a time, each until every event it
 * set off has been published and taken. The timers' polling is kept out twice over: the background
 * tasks run at start-up and then not for an hour (the settings below), and the polls that do run
 * (the replica heartbeat, an outbox poll that finds nothing) are told by their shape and left out.
 * `STATEMENT_SHAPES=1` prints each write's statements.
 */
const REQUESTS = 6;
const QUIET = {
  // The API key is looked up once, then served from the gateway's cache for the whole run.
  API_KEY_CACHE_MS: '600000',
  OUTBOX_POLL_MS: '60000',
  // A mark sent rides on its service's next store (outbox.ts, ridingMarks); a slow machine's request
  // still finds it waiting, so no timer marks one alone inside a write's window.
  OUTBOX_MARK_DELAY_MS: '2500',
  RETENTION_INTERVAL_MS: '3600000',
  RECURRING_INTERVAL_MS: '3600000',
  CONVERSION_RECOVERY_MS: '3600000',
  WEBHOOKS_POLL_MS: '60000',
  WEBHOOKS_ROUTES_RECONCILE_MS: '3600000',
};

let sys: TestSystem;
let counts: Record<string, StatementCount>;

beforeAll(async () => {
  sys = await startTestSystem({ env: QUIET });
  const database = new URL(sys.databaseUrl).pathname.slice(1);
  const seen: CountedStatement[] = [];
  const stop = instrumentPg(pg, { database }, (s) => seen.push(s));
  const settled = settledOf(sys.databaseUrl);
  try {
    const f = new Fixtures(new Api(sys.url, sys.keys[1]));
    counts = await measureWrites(countedWrites(f), {
      requests: REQUESTS,
      settle: settled.settle,
      window: () => {
        const from = seen.length;
        return () => seen.slice(from);
      },
    });
  } finally {
    stop();
    await settled.end();
  }
  console.log(statementTable(counts, { shapes: !!process.env.STATEMENT_SHAPES }));
}, 240_000);

afterAll(() => sys?.stop());

describe('statements per write request, the whole system', () => {
  it.each(Object.keys(STATEMENT_BUDGETS) as WriteName[])('%s stays within its ceiling', (name) => {
    const count = counts[name];
    expect(count).toBeDefined();
    const { ceiling, budget } = STATEMENT_BUDGETS[name];
    expect(ceiling).toBeGreaterThanOrEqual(budget);
    if (count!.perRequest > ceiling) {
      const shapes = count!.statements.map((s) => `  ${s.perRequest}  ${s.sql}`).join('\n');
      throw new Error(`${name}: ${count!.perRequest} statements per request, over its ceiling ${ceiling}:\n${shapes}`);
    }
  });
});
