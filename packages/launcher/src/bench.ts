import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { createApiKey } from '@bo/gateway';
import { createDb, deleteTopology } from '@bo/runtime';
import { repoRoot } from './paths';
import { systemTopology } from './services';

/**
 * `npm run bench`: autocannon against the gateway for `list partners` and `create partner`, once
 * with every service its own process over RabbitMQ and once all in one process on the in-process
 * bus, printed side by side. Needs PostgreSQL and RabbitMQ (DATABASE_URL / AMQP_URL, else local
 * defaults); makes and drops a database of its own.
 */
const PG_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const AMQP_URL = process.env.BENCH_AMQP_URL ?? process.env.TEST_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ORG = 1;

interface Row {
  scenario: string;
  connections: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function main(): Promise<void> {
  const dbName = `bo_bench_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`create database ${dbName}`);
  const url = new URL(PG_URL);
  url.pathname = `/${dbName}`;
  const results: Record<string, Row[]> = {};
  try {
    for (const mode of ['rabbitmq', 'in-process'] as const) {
      results[mode] = await benchMode(mode, url.toString());
    }
  } finally {
    await admin.query(`drop database if exists ${dbName} with (force)`);
    await admin.end();
  }
  report(results['rabbitmq'] ?? [], results['in-process'] ?? []);
}

async function benchMode(mode: 'rabbitmq' | 'in-process', databaseUrl: string): Promise<Row[]> {
  const port = await freePort();
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    AMQP_URL: mode === 'rabbitmq' ? AMQP_URL : '',
    BUS_PREFIX: `bench_${mode === 'rabbitmq' ? 'mq' : 'mem'}_${Date.now().toString(36)}`,
    PORT: String(port),
    LOG_LEVEL: 'warn',
  };
  const child = spawn(process.execPath, [join(repoRoot, 'packages', 'launcher', 'dist', 'start.js')], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitHealthy(base, child);
    const db = createDb(databaseUrl, 'gateway', 1);
    const { key } = await createApiKey(db, ORG, 'bench');
    await db.destroy();
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
    for (let i = 0; i < 50; i++) {
      await fetch(`${base}/crm/editpatner`, { method: 'POST', headers, body: JSON.stringify({ org_id: String(ORG), action: 'create', partnername: `Seed ${i}`, partner_type: 'customer' }) });
    }
    const list = JSON.stringify({ org_id: String(ORG), page_size: 25 });
    const create = JSON.stringify({ org_id: String(ORG), userid: 'bench', action: 'create', partnername: 'Bench Partner', partner_type: 'both', credit_limit: 100 });
    console.error(`[bench] ${mode}: warming up`);
    await run(`${base}/crm/partners`, headers, list, 8, 3);
    const rows: Row[] = [];
    console.error(`[bench] ${mode}: list partners`);
    rows.push({ scenario: 'list partners', connections: 32, ...(await run(`${base}/crm/partners`, headers, list, 32, SECONDS)) });
    rows.push({ scenario: 'list partners', connections: 1, ...(await run(`${base}/crm/partners`, headers, list, 1, Math.max(3, SECONDS / 2))) });
    console.error(`[bench] ${mode}: create partner`);
    rows.push({ scenario: 'create partner', connections: 32, ...(await run(`${base}/crm/editpatner`, headers, create, 32, SECONDS)) });
    rows.push({ scenario: 'create partner', connections: 1, ...(await run(`${base}/crm/editpatner`, headers, create, 1, Math.max(3, SECONDS / 2))) });
    return rows;
  } finally {
    child.kill('SIGINT');
    await new Promise((r) => child.once('exit', r));
    if (mode === 'rabbitmq') await deleteTopology(AMQP_URL, systemTopology(env.BUS_PREFIX));
  }
}

async function run(url: string, headers: Record<string, string>, body: string, connections: number, duration: number): Promise<Omit<Row, 'scenario' | 'connections'>> {
  const result = await autocannon({ url, method: 'POST', headers, body, connections, duration });
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
  };
}

function report(mq: Row[], mem: Row[]): void {
  const lines = [
    `Benchmark: ${SECONDS}s per 32-connection run, node ${process.version}, ${require('node:os').cpus().length} cores`,
    '',
    '| scenario | conns | RabbitMQ req/s | p50 ms | p99 ms | in-process req/s | p50 ms | p99 ms | ratio | errors |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  mq.forEach((a, i) => {
    const b = mem[i];
    if (!b) return;
    const ratio = b.rps ? (a.rps / b.rps).toFixed(2) : 'n/a';
    lines.push(`| ${a.scenario} | ${a.connections} | ${a.rps} | ${a.p50} | ${a.p99} | ${b.rps} | ${b.p50} | ${b.p99} | ${ratio} | ${a.errors}/${b.errors} |`);
  });
  const list32 = mq.find((r) => r.scenario === 'list partners' && r.connections === 32);
  const list1 = mq.find((r) => r.scenario === 'list partners' && r.connections === 1);
  const mem32 = mem.find((r) => r.scenario === 'list partners' && r.connections === 32);
  if (list32 && list1 && mem32) {
    lines.push('', 'Targets (list partners over RabbitMQ):');
    lines.push(`- >= 2000 req/s at 32 connections: ${list32.rps} ${list32.rps >= 2000 ? 'met' : 'NOT met'}`);
    lines.push(`- p99 <= 25 ms at 32 connections: ${list32.p99} ${list32.p99 <= 25 ? 'met' : 'NOT met'}`);
    lines.push(`- >= 0.7 x in-process: ${(list32.rps / mem32.rps).toFixed(2)} ${list32.rps >= 0.7 * mem32.rps ? 'met' : 'NOT met'}`);
    lines.push(`- p50 <= 2 ms at 1 connection: ${list1.p50} ${list1.p50 <= 2 ? 'met' : 'NOT met'}`);
  }
  console.log(lines.join('\n'));
}

async function waitHealthy(base: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error('system exited during start-up');
    try {
      if ((await fetch(`${base}/health`)).ok) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('system did not become healthy within 60 s');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
