import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { repoRoot } from '@bo/launcher';
import { Api } from './api';
import { CURRENCY, Fixtures, ORG_ID } from './fixtures';
import { createPartnerBody } from './scenarios';
import { launchSystem } from './system';

/**
 * `npm run bench:statements`: the SQL statements each write costs the whole system (gateway,
 * services, their consumers and outbox publishers), counted from PostgreSQL's own log. Throughput on
 * a shared 2-core machine swings ±30 %; what a request costs in round trips does not, so this is
 * how a change to a write path is bisected. It needs a local PostgreSQL it may reconfigure
 * (`ALTER SYSTEM SET log_statement = 'all'` for the run, reset after) and whose log file it can read.
 */
export const STATEMENTS_USAGE = `usage: npm run bench:statements -- [--subject DIR] [--requests N] [--log FILE] [--json FILE]
  --subject DIR   a built checkout of another commit to measure instead of this one
  --requests N    requests per write, sent one at a time (default 40)
  --log FILE      PostgreSQL's server log (default: the one pg_current_logfile() names, else Debian's)`;

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

export async function countStatements(argv: readonly string[]): Promise<Record<string, StatementCount>> {
  const { values } = parseArgs({
    args: [...argv],
    options: { subject: { type: 'string' }, requests: { type: 'string' }, log: { type: 'string' }, json: { type: 'string' } },
    strict: true,
  });
  const requests = Number(values.requests ?? 40);
  if (!Number.isInteger(requests) || requests < 1 || requests > 10_000) throw new Error(STATEMENTS_USAGE);
  const pgUrl = process.env['BENCH_DATABASE_URL'] ?? process.env['TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const amqpUrl = process.env['BENCH_AMQP_URL'] ?? process.env['TEST_AMQP_URL'] ?? 'amqp://guest:guest@127.0.0.1:5672';
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
  return result;
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
