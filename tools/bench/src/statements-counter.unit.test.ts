import { OBSERVER_APP, instrumentPg, isIdlePoll, shapeOf, tally, type CountedStatement } from './statements-counter';

/** A stand-in for node-postgres's Client: answers each query later (as the server would), by callback or promise. */
class FakeClient {
  readonly connectionParameters: { database: string; application_name?: string };
  readonly answers: Array<() => void> = [];
  constructor(database: string, application_name?: string) {
    this.connectionParameters = { database, application_name };
  }
  query(config: unknown, values?: unknown, callback?: unknown): unknown {
    const cb = (typeof values === 'function' ? values : callback) as ((err: unknown, res: unknown) => void) | undefined;
    const rows = String(typeof config === 'string' ? config : (config as { text: string }).text).includes('nothing') ? 0 : 1;
    if (cb) {
      this.answers.push(() => cb(null, { rowCount: rows }));
      return undefined;
    }
    return new Promise((resolve) => this.answers.push(() => resolve({ rowCount: rows })));
  }
  answerAll(): void {
    for (const answer of this.answers.splice(0)) answer();
  }
}
const fakePg = { Client: FakeClient };

describe('counting statements in the client', () => {
  it('counts the statements sent to the database in scope, not another database’s nor an observer’s, and stops when told', async () => {
    const seen: CountedStatement[] = [];
    const stop = instrumentPg(fakePg, { database: 'sys' }, (s) => seen.push(s));
    const system = new FakeClient('sys');
    const other = new FakeClient('elsewhere');
    const observer = new FakeClient('sys', OBSERVER_APP);
    const done = system.query('select 1') as Promise<unknown>;
    void other.query('select 2');
    void observer.query('select 3');
    system.query({ text: 'select $1' }, [1], () => undefined);
    system.answerAll();
    await done;
    stop();
    void system.query('select 4');
    expect(seen.map((s) => [s.sql, s.rows])).toEqual([
      ['select 1', 1],
      ['select $1', 1],
    ]);
  });

  it('tells a statement sent behind an unanswered one of its connection (pipelined: no round trip of its own)', async () => {
    const seen: CountedStatement[] = [];
    const stop = instrumentPg(fakePg, { database: 'sys' }, (s) => seen.push(s));
    const a = new FakeClient('sys');
    void a.query('BEGIN;');
    const inserted = a.query('insert 1') as Promise<unknown>;
    a.answerAll();
    await inserted;
    void a.query('COMMIT;');
    stop();
    expect(seen.map((s) => s.pipelined)).toEqual([false, true, false]);
    expect(tally(seen, 1)).toMatchObject({ perRequest: 3, roundTrips: 2 });
  });

  it('leaves the idle polls out: the heartbeat and an outbox poll that took nothing, not one that took work', () => {
    const poll = 'update outbox set claimed_until = clock_timestamp() + make_interval(secs => $1) where id in (select id from outbox)';
    const statements: CountedStatement[] = [
      { sql: 'with me as (\n insert into replicas (id, seen_at) values ($1, now()))', rows: 1, pipelined: false },
      { sql: poll, rows: 0, pipelined: false },
      { sql: poll, rows: 2, pipelined: false },
      { sql: "select * from t where id = 12 and name = 'x'", rows: 1, pipelined: false },
    ];
    expect(statements.map(isIdlePoll)).toEqual([true, true, false, false]);
    const count = tally(statements, 2);
    expect(count).toMatchObject({ perRequest: 1, roundTrips: 1, idle: 2 });
    expect(count.statements.map((s) => s.sql)).toContain("select * from t where id = N and name = '?'");
  });

  it('folds literals and whitespace into a statement’s shape', () => {
    expect(shapeOf("select  -1, 2.5,\n 'a''b' from t$1")).toBe("select N, N, '?' from t$N");
  });
});
