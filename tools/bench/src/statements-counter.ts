/**
 * A count of the SQL statements a process sends, taken in node-postgres's client rather than from
 * PostgreSQL's log, so it needs no server setting and sees only the database it is pointed at: it
 * runs on a server shared with others. Each call of `Client.prototype.query` is one statement, as
 * the server's `log_statement = 'all'` logs it: BEGIN and COMMIT are statements, a text of several
 * statements sent at once is one.
 *
 * The in-process test system counts with `instrumentPg` on the `pg` module its code loads
 * (tests/budget/statement-budget.e2e.test.ts); `npm run bench:statements -- --count client` starts
 * each process of the system with statements-preload.js, which does the same and appends every
 * statement to a file (statements.ts).
 */

/** One statement sent to the counted database, with the rows it answered once it did (null until then or on error). */
export interface CountedStatement {
  sql: string;
  rows: number | null;
  /**
   * Sent while an earlier statement of its connection was still unanswered (node-postgres pipelining:
   * a BEGIN with the first statement, a COMMIT with the last), so it cost no round trip of its own.
   */
  pipelined: boolean;
}

/** The connections a count is taken of: those to `database`, except the observers' own (OBSERVER_APP). */
export interface CountScope {
  database: string;
}

/**
 * The application_name of a connection that watches the system rather than being part of it (the
 * budget's wait for events to settle): its statements are not counted.
 */
export const OBSERVER_APP = 'bo-statement-observer';

interface PgClientLike {
  connectionParameters?: { database?: string; application_name?: string };
}

type QueryFn = (this: PgClientLike, config: unknown, values?: unknown, callback?: unknown) => unknown;

/** Statements sent and not answered yet, by connection. */
const unanswered = new WeakMap<object, number>();

const patched = new WeakMap<object, { original: QueryFn; sinks: Set<Sink> }>();

type Sink = { scope: CountScope; record: (s: CountedStatement) => void; answered?: (s: CountedStatement) => void };

/**
 * Counts the statements every client of `pgModule` sends to the scope's database until the returned
 * function is called. Statements are recorded when sent (so a window is the statements sent in it)
 * and their row count filled in when answered.
 */
export function instrumentPg(
  pgModule: { Client: { prototype: object } },
  scope: CountScope,
  record: (s: CountedStatement) => void,
  answered?: (s: CountedStatement) => void,
): () => void {
  const proto = pgModule.Client.prototype as { query: QueryFn };
  let entry = patched.get(proto);
  if (!entry) {
    const original = proto.query;
    const sinks = new Set<Sink>();
    entry = { original, sinks };
    patched.set(proto, entry);
    proto.query = function counted(this: PgClientLike, config: unknown, values?: unknown, callback?: unknown): unknown {
      const params = this.connectionParameters;
      const wanted = params?.application_name === OBSERVER_APP ? [] : [...sinks].filter((s) => s.scope.database === params?.database);
      if (wanted.length === 0) return original.call(this, config, values, callback);
      const sql = textOf(config);
      const waiting = unanswered.get(this) ?? 0;
      unanswered.set(this, waiting + 1);
      const statement: CountedStatement = { sql, rows: null, pipelined: waiting > 0 };
      for (const sink of wanted) sink.record(statement);
      const ended = () => {
        unanswered.set(this, Math.max(0, (unanswered.get(this) ?? 1) - 1));
        for (const sink of wanted) sink.answered?.(statement);
      };
      const answered = (res: unknown) => {
        const count = (res as { rowCount?: number | null } | undefined)?.rowCount;
        statement.rows = typeof count === 'number' ? count : 0;
        ended();
      };
      // node-postgres takes a callback in the place of `values`, or after them, or on a submittable, else answers a promise.
      const wrap = (cb: (err: unknown, res: unknown) => void) => (err: unknown, res: unknown) => {
        if (err) ended();
        else answered(res);
        cb(err, res);
      };
      if (typeof values === 'function') return original.call(this, config, wrap(values as never));
      if (typeof callback === 'function') return original.call(this, config, values, wrap(callback as never));
      const submittable = config as { submit?: unknown; callback?: unknown };
      if (config && typeof submittable.submit === 'function') {
        if (typeof submittable.callback === 'function') submittable.callback = wrap(submittable.callback as never);
        return original.call(this, config, values, callback);
      }
      const result = original.call(this, config, values, callback);
      if (result && typeof (result as Promise<unknown>).then === 'function') {
        (result as Promise<unknown>).then(answered, ended);
      }
      return result;
    };
  }
  const sink: Sink = { scope, record, answered };
  entry.sinks.add(sink);
  return () => {
    const e = patched.get(proto);
    if (!e) return;
    e.sinks.delete(sink);
    if (e.sinks.size === 0) {
      proto.query = e.original;
      patched.delete(proto);
    }
  };
}

function textOf(config: unknown): string {
  if (typeof config === 'string') return config;
  const text = (config as { text?: unknown } | null)?.text;
  return typeof text === 'string' ? text : '';
}

/** A statement's shape: literals as '?' and N, whitespace folded, cut at `max` characters. */
export function shapeOf(sql: string, max = 160): string {
  return sql
    .replace(/'(?:[^']|'')*'/g, "'?'")
    .replace(/(?<![\w.])-?\d+(\.\d+)?\b/g, 'N')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, max);
}

/**
 * The statements an idle system runs on its timers, which no request causes: the gateway replica's
 * heartbeat, and an outbox relay's or the webhooks' poll that found nothing to take. They are
 * counted apart and left out of a request's count, whatever moment the timers fire at, so a count
 * does not depend on how long a run takes. A poll that found work is counted: that work is some
 * request's.
 */
export function isIdlePoll(s: CountedStatement): boolean {
  const sql = s.sql.replace(/\s+/g, ' ').trim();
  if (/^with me as \( insert into replicas /i.test(sql)) return true;
  if (s.rows === 0 && /^update outbox set claimed_until = clock_timestamp\(\)/i.test(sql)) return true;
  return false;
}

export interface StatementCount {
  /** Statements per request, idle polling left out. */
  perRequest: number;
  /** Round trips per request: the statements less those sent behind an unanswered one of their connection. */
  roundTrips: number;
  /** Idle polls seen in the window (not in perRequest). */
  idle: number;
  /** Each statement's shape (literals as ?/N) with how many times a request ran it, most first. */
  statements: Array<{ perRequest: number; sql: string }>;
}

/** The count of a window of `requests` requests. */
export function tally(statements: readonly CountedStatement[], requests: number): StatementCount {
  const shapes = new Map<string, number>();
  let total = 0;
  let trips = 0;
  let idle = 0;
  for (const s of statements) {
    if (isIdlePoll(s)) {
      idle++;
      continue;
    }
    const shape = shapeOf(s.sql);
    shapes.set(shape, (shapes.get(shape) ?? 0) + 1);
    total++;
    if (!s.pipelined) trips++;
  }
  const per = (n: number) => Math.round((n / requests) * 100) / 100;
  return {
    perRequest: per(total),
    roundTrips: per(trips),
    idle,
    statements: [...shapes].sort((a, b) => b[1] - a[1]).map(([sql, n]) => ({ perRequest: per(n), sql })),
  };
}
