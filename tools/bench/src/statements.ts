import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { repoRoot } from '@bo/launcher';
import { Api } from './api';
import { CURRENCY, Fixtures, ORG_ID } from './fixtures';
import { createPartnerBody } from './scenarios';
import type { CountedStatement, StatementCount as ClientCount } from './statements-counter';
import { countedWrites, measureWrites, settledOf } from './statements-writes';
import { launchSystem } from './system';

/**
 * `npm run bench:statements`: the SQL statements each write costs the whole system (gateway,
 * services, their consumers and outbox publishers), counted from PostgreSQL's own log. Throughput on
 * a shared 2-core machine swings ±30 %; what a request costs in round trips does not, so this is
 * how a change to a write path is bisected.
 *
 * Two ways of counting:
 * - `--count client`: in node-postgres's client of every process of the system (statements-preload.js,
 *   statements-counter.ts), over the writes and ceilings the budget test checks (statements-writes.ts),
 *   each request settled before the next. It changes no server setting, so it runs on a server
 *   shared with others.
 * - `--count log` (the default): from PostgreSQL's own log. It needs a local PostgreSQL it may
 *   reconfigure (`ALTER SYSTEM SET log_statement = 'all'` for the run, reset after), whose log file it
 *   can read, and that nothing else uses meanwhile: every statement of the database is counted.
 */
export const STATEMENTS_USAGE = `usage: npm run bench:statements -- [--count client|log] [--subject DIR] [--requests N] [--together N] [--only a,b] [--shapes] [--log FILE] [--json FILE]
  --count client  count in each process's PostgreSQL client (no server setting changed), with the budgets
  --count log     count from PostgreSQL's server log (the default; reconfigures the server for the run)
  --subject DIR   a built checkout of another commit to measure instead of this one
  --requests N    requests per write, sent one at a time (default 40)
  --together N    (client) send them N at a time, each group settled before the next: batches share their work, as under load
  --only a,b      (client) only these writes: create-partner, create-invoice, validate-invoice, ...
  --shapes        (client) print each write's statements
  --log FILE      (log) PostgreSQL's server log (default: the one pg_current_logfile() names, else Debian's)`;

interface Phase {
  name: string;
  requests: number;
  start: number;
  end: number;
}

export interface StatementCount {
  /** Statements of the system's database per request, idle polling included (see `idle`). */
  perRequest: number;
  /** Each statement's shape (literals as ?/N) with how many times a request ran it, most first. */
  statements: Array<{ perRequest: number; sql: string }>;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export type StatementsResult =
  { count: 'log'; writes: Record<string, StatementCount> } | { count: 'client'; writes: Record<string, ClientCount>; shapes: boolean };

export async function countStatements(argv: readonly string[]): Promise<StatementsResult> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      count: { type: 'string' },
      subject: { type: 'string' },
      requests: { type: 'string' },
      together: { type: 'string' },
      only: { type: 'string' },
      shapes: { type: 'boolean' },
      log: { type: 'string' },
      json: { type: 'string' },
    },
    strict: true,
  });
  const requests = Number(values.requests ?? 40);
  if (!Number.isInteger(requests) || requests < 1 || requests > 10_000) throw new Error(STATEMENTS_USAGE);
  if (values.count !== undefined && values.count !== 'client' && values.count !== 'log') throw new Error(STATEMENTS_USAGE);
  const together = Number(values.together ?? 1);
  if (!Number.isInteger(together) || together < 1 || together > 64 || (together > 1 && values.count !== 'client'))
    throw new Error(STATEMENTS_USAGE);
  const pgUrl = process.env['BENCH_DATABASE_URL'] ?? process.env['TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const amqpUrl = process.env['BENCH_AMQP_URL'] ?? process.env['TEST_AMQP_URL'] ?? 'amqp://guest:guest@127.0.0.1:5672';
  if (values.count === 'client') {
    const writes = await countInClients({ pgUrl, amqpUrl, requests, together, subject: values.subject, only: values.only?.split(',') });
    if (values.json) writeFileSync(values.json, JSON.stringify(writes, null, 1));
    return { count: 'client', writes, shapes: values.shapes === true };
  }
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  const log = values.log ?? (await serverLog(admin));
  const system = await launchSystem('rabbitmq', { pgUrl, amqpUrl }, values.subject ?? repoRoot);
  const phases: Phase[] = [];
  try {
    const api = new Api(system.base, system.token);
    const f = new Fixtures(api);
    const partners = await f.partners();
    const stock = await f.products();
    const today = new Date().toISOString().slice(0, 10);
    const phase = async (name: string, count: number, request: (i: number) => Promise<unknown>) => {
      for (let i = 0; i < 3; i++) await request(count + i); // warm: the first of a kind prepares its statements
      await pause(1500);
      const start = statSync(log).size;
      for (let i = 0; i < count; i++) await request(i);
      // What the requests set off (events, their consumers) lands before the count closes.
      await pause(1500);
      phases.push({ name, requests: count, start, end: statSync(log).size });
    };
    await admin.query(`alter system set log_statement = 'all'`);
    await admin.query('select pg_reload_conf()');
    await pause(500);
    // The polling of an idle system, to tell apart from what requests cost.
    await phase('idle (3 s)', 1, () => pause(3000));
    await phase('create-partner', requests, () => api.ok('/crm/editpatner', JSON.parse(createPartnerBody) as Record<string, unknown>));
    const drafts: number[] = [];
    await phase('create-invoice', requests, async (i) => drafts.push(await f.createInvoice(partners[i % partners.length] as number)));
    const open: number[] = [];
    await phase('validate-invoice', requests, async () => {
      const id = drafts.shift() as number;
      await f.validate(id);
      open.push(id);
    });
    await phase('register-payment', requests, (i) =>
      api.ok('/invoicing/invoice/new', {
        org_id: ORG_ID,
        id: open[i % open.length],
        register_payment: true,
        amount: 0.01,
        payment_date: today,
      }),
    );
    const triples = await f.partnerTriples(8).catch(() => undefined);
    if (triples)
      await phase('create-payment', requests, (i) => {
        const t = triples[i % triples.length] as (typeof triples)[number];
        return api.ok('/invoicing/payments', {
          org_id: ORG_ID,
          action: 'create',
          amount: 0.03,
          currency: CURRENCY,
          direction: 'in',
          method: 'bank_transfer',
          payment_date: today,
          partner: t.partner,
          allocations: t.invoices.map((id) => ({ invoice_id: id, amount: 0.01 })),
        });
      });
    await phase('stock-adjustment', requests, (i) =>
      api.ok('/inventory/ops/getdata', {
        org_id: ORG_ID,
        action: 'stock_adjustment',
        product_id: stock.ids[i % stock.ids.length],
        // Every adjustment moves stock: 11, 12, 11, … (from 10).
        qty_locations: { [stock.location]: 11 + (i % 2) },
        adjustment_type: 'count',
      }),
    );
  } finally {
    await admin.query('alter system reset log_statement').catch(() => undefined);
    await admin.query('select pg_reload_conf()').catch(() => undefined);
    await admin.end();
    await system.stop();
  }
  const database = new URL(system.databaseUrl).pathname.slice(1);
  const text = readFileSync(log);
  const result = Object.fromEntries(
    phases.map((p) => [p.name, countIn(text.subarray(p.start, p.end).toString('utf8'), database, p.requests)]),
  );
  if (values.json) writeFileSync(values.json, JSON.stringify(result, null, 1));
  return { count: 'log', writes: result };
}

/**
 * The writes of statements-writes.ts counted in the clients of the system's processes: each is
 * started with statements-preload.js, which appends every statement to a file, and a window is a
 * stretch of that file.
 */
async function countInClients(opts: {
  pgUrl: string;
  amqpUrl: string;
  requests: number;
  together: number;
  subject?: string;
  only?: string[];
}): Promise<Record<string, ClientCount>> {
  const dir = mkdtempSync(join(tmpdir(), 'bo-statements-'));
  const file = join(dir, 'statements.jsonl');
  writeFileSync(file, '');
  const preload = join(__dirname, 'statements-preload.js');
  const saved = { options: process.env['NODE_OPTIONS'], file: process.env['BO_STATEMENTS_FILE'] };
  process.env['NODE_OPTIONS'] = `${saved.options ?? ''} --require ${preload}`.trim();
  process.env['BO_STATEMENTS_FILE'] = file;
  // The system's timers stay quiet through the run (their polls are told apart anyway: isIdlePoll).
  const quiet = {
    API_KEY_CACHE_MS: '600000',
    OUTBOX_POLL_MS: '60000',
    RETENTION_INTERVAL_MS: '3600000',
    RECURRING_INTERVAL_MS: '3600000',
    CONVERSION_RECOVERY_MS: '3600000',
    WEBHOOKS_POLL_MS: '60000',
    WEBHOOKS_ROUTES_RECONCILE_MS: '3600000',
  };
  const before = Object.fromEntries(Object.keys(quiet).map((k) => [k, process.env[k]]));
  Object.assign(process.env, quiet);
  let system: Awaited<ReturnType<typeof launchSystem>> | undefined;
  try {
    system = await launchSystem('rabbitmq', { pgUrl: opts.pgUrl, amqpUrl: opts.amqpUrl }, opts.subject ?? repoRoot);
  } finally {
    restore('NODE_OPTIONS', saved.options);
    restore('BO_STATEMENTS_FILE', saved.file);
    for (const [k, v] of Object.entries(before)) restore(k, v);
  }
  const settled = settledOf(system.databaseUrl);
  try {
    const f = new Fixtures(new Api(system.base, system.token));
    return await measureWrites(countedWrites(f), {
      requests: opts.requests,
      together: opts.together,
      settle: settled.settle,
      only: opts.only,
      window: () => {
        const from = statSync(file).size;
        return () => {
          const text = readFileSync(file).subarray(from).toString('utf8');
          return text
            .split('\n')
            .filter((line) => line.length > 0)
            .map((line) => JSON.parse(line) as CountedStatement);
        };
      },
    });
  } finally {
    await settled.end();
    await system.stop();
    if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
  }
}

function restore(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

/** The statements of `database` in a stretch of the server's log (log_line_prefix with `%d`, Debian's default). */
export function countIn(text: string, database: string, requests: number): StatementCount {
  const records: string[] = [];
  for (const line of text.split('\n')) {
    if (/^\d{4}-\d\d-\d\d /.test(line)) records.push(line);
    else if (records.length) records[records.length - 1] += ` ${line.trim()}`;
  }
  const shapes = new Map<string, number>();
  let total = 0;
  for (const record of records) {
    if (!record.includes(`@${database} `)) continue;
    const m = /LOG:\s+(?:statement|execute [^:]*):\s*(.*)$/.exec(record);
    if (!m) continue;
    const shape = (m[1] as string)
      .replace(/'(?:[^']|'')*'/g, "'?'")
      .replace(/\b\d+(\.\d+)?\b/g, 'N')
      .replace(/\s+/g, ' ')
      .slice(0, 160);
    shapes.set(shape, (shapes.get(shape) ?? 0) + 1);
    total++;
  }
  const per = (n: number) => Math.round((n / requests) * 100) / 100;
  return {
    perRequest: per(total),
    statements: [...shapes].sort((a, b) => b[1] - a[1]).map(([sql, n]) => ({ perRequest: per(n), sql })),
  };
}

/** Where the server writes its log: the collector's file, else Debian's stderr log of the cluster. */
async function serverLog(admin: pg.Client): Promise<string> {
  const { rows } = await admin.query<{ file: string | null; dir: string; version: string }>(
    `select pg_current_logfile() as file, current_setting('data_directory') as dir, current_setting('server_version_num') as version`,
  );
  const row = rows[0] as { file: string | null; dir: string; version: string };
  if (row.file) return row.file.startsWith('/') ? row.file : join(row.dir, row.file);
  return `/var/log/postgresql/postgresql-${Math.floor(Number(row.version) / 10000)}-main.log`;
}
