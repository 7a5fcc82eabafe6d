import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiKey } from '@bo/gateway';
import { createDb } from '@bo/runtime';
import * as testing from '@bo/testkit';
import { freePort } from '@bo/launcher';
import { BrokerInspector } from './broker';
import { replayChecks, runChecks, stateChecks, type CheckContext } from './check';
import { CarefulClient, describeAttempts } from './client';
import { createRunDatabase } from './database';
import { waitDrained } from './drain';
import { clusterFaultPlan, faultPlan, runFaults } from './faults';
import { startRabbitCluster, type RabbitCluster } from './cluster';
import { Load, rng } from './load';
import type { ChaosOptions } from './options';
import { Fleet, type ProcessSpec } from './processes';
import { waitReady } from './readiness';
import type { RunReport } from './report';
import { WebhookReceiver } from './webhooks';

const ORGS = [1, 2];
/** The phase that follows each one, by the names the report's phases record. */
const NEXT_PHASE: Record<string, string> = {
  startup: 'seed',
  seed: 'load',
  load: 'drain',
  drain: 'replay',
  replay: 'drain2',
  drain2: 'checks',
};
/** Two instances of catalog, invoicing and webhooks (competing consumers, two schedulers, two dispatchers), one of the others. */
const INSTANCES = [
  ['partners', 1],
  ['catalog', 2],
  ['sales', 1],
  ['invoicing', 2],
  ['webhooks', 2],
] as const;
/** --cluster: two replicas of every service and of the gateway. */
const CLUSTER_INSTANCES = [
  ['partners', 2],
  ['catalog', 2],
  ['sales', 2],
  ['invoicing', 2],
  ['webhooks', 2],
] as const;
const CLUSTER_GATEWAYS = 2;
/** The schemas behind PgBouncer: one pooler database each, its search_path set (docs/scaling.md). */
const SCHEMAS = ['partners', 'catalog', 'sales', 'invoicing', 'webhooks', 'gateway'] as const;

function hostPort(url: string, defaultPort: number): { host: string; port: number } {
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port || defaultPort) };
}

/**
 * One chaos run: a fresh database and bus prefix, the processes behind two proxies, seed data,
 * bounded load with faults spread over it, recovery and drain, every key re-sent, then the checks.
 * Everything it made is removed afterwards unless `keep`.
 */
export async function runOnce(options: ChaosOptions, runNo: number, log: (line: string) => void): Promise<RunReport> {
  const t0 = Date.now();
  const phases: Record<string, number> = {};
  let mark = Date.now();
  /** The phase under way, for a run stopped by its deadline. */
  let current = 'startup';
  const phase = (name: string) => {
    phases[name] = (Date.now() - mark) / 1000;
    mark = Date.now();
    current = NEXT_PHASE[name] ?? 'teardown';
  };
  const id = `chaos_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const logDir = mkdtempSync(join(tmpdir(), `bo-${id}-`));
  const random = rng(options.seed + runNo - 1);
  log(`run ${runNo}: id ${id}, seed ${options.seed + runNo - 1}, logs in ${logDir}`);

  const db = await createRunDatabase(options.databaseUrl, id);
  const pgTarget = hostPort(options.databaseUrl, 5432);
  const mqTarget = hostPort(options.amqpUrl, 5672);
  const proxies = {
    postgres: await new testing.TcpProxy({ targetHost: pgTarget.host, targetPort: pgTarget.port }).start(),
    rabbitmq: await new testing.TcpProxy({ targetHost: mqTarget.host, targetPort: mqTarget.port }).start(),
  };
  const amqpVia = new URL(options.amqpUrl);
  amqpVia.hostname = proxies.rabbitmq.host;
  amqpVia.port = String(proxies.rabbitmq.port);
  const ports = await Promise.all(Array.from({ length: options.cluster ? CLUSTER_GATEWAYS : 1 }, () => freePort()));
  const gatewayUrls = ports.map((p) => `http://127.0.0.1:${p}`);
  let cluster: RabbitCluster | undefined;
  let pgbouncer: testing.PgBouncer | undefined;
  if (options.cluster) {
    cluster = await startRabbitCluster(join(logDir, 'rabbitmq'), options.clusterPort, log);
    pgbouncer = await testing
      .startPgBouncer({ databaseUrl: db.urlVia(proxies.postgres.host, proxies.postgres.port), schemas: SCHEMAS, poolSize: 4 })
      .catch(async (err: unknown) => {
        await cluster?.stop().catch(() => undefined);
        await Promise.all([proxies.postgres.close(), proxies.rabbitmq.close()]);
        await db.drop().catch(() => undefined);
        throw err;
      });
  }
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? tmpdir(),
    NODE_ENV: 'production',
    DATABASE_URL: db.urlVia(proxies.postgres.host, proxies.postgres.port),
    AMQP_URL: amqpVia.toString(),
    BUS_PREFIX: id,
    LOG_LEVEL: 'warn',
    PORT: String(ports[0]),
    RPC_TIMEOUT_MS: String(options.rpcTimeoutMs),
    RECURRING_INTERVAL_MS: String(options.recurringIntervalMs),
    EVENT_RETRY_BASE_MS: String(options.eventRetryBaseMs),
    OUTBOX_POLL_MS: String(options.outboxPollMs),
    DB_POOL_MAX: '4',
    API_KEY_CACHE_MS: '5000',
    // The load is one organization's, far over a production rate limit; the limiter still runs on
    // every request, but the invariants are about faults, and a 429 is a retryable answer the
    // harness's oracle would read as final. Rate limits have tests of their own (rate-limit.e2e).
    RATE_LIMIT_READS_PER_SECOND: '1000000',
    RATE_LIMIT_WRITES_PER_SECOND: '1000000',
    RATE_LIMIT_IN_FLIGHT: '100000',
    // The receiver is this harness on 127.0.0.1, over http; retries are seconds apart, not hours.
    WEBHOOKS_SECRET_KEYS: `chaos:chaos-run-${id}-webhooks-secret-key`,
    WEBHOOKS_ALLOW_HTTP: '1',
    WEBHOOKS_ALLOW_PRIVATE: '1',
    WEBHOOKS_TIMEOUT_MS: '3000',
    WEBHOOKS_POLL_MS: '250',
    WEBHOOKS_RETRY_SCHEDULE_MS: '100,200,400,800,1600,3200,5000,5000,5000,5000,5000,5000',
    // The load receives no e-invoice; compiling the official rules costs seconds of CPU at each of
    // the many (re)starts a run makes, on a machine the faults already load.
    EINVOICE_RULES_WARM: 'off',
  };
  if (cluster && pgbouncer) {
    // Every durable queue replicated over the cluster; statements unnamed for PgBouncer 1.18.
    Object.assign(env, { AMQP_URL: cluster.url, BUS_QUEUE_TYPE: 'quorum', DB_PREPARED_STATEMENTS: 'off' });
  }
  /** Each process reaches PostgreSQL through its schema's pooler database when behind PgBouncer. */
  const envOf = (role: (typeof SCHEMAS)[number], extra: Record<string, string> = {}) => ({
    ...env,
    ...(pgbouncer ? { DATABASE_URL: pgbouncer.urlFor(role) } : {}),
    ...extra,
  });
  const specs: ProcessSpec[] = [
    ...(options.cluster ? CLUSTER_INSTANCES : INSTANCES).flatMap(([role, n]) =>
      Array.from({ length: n }, (_, i) => ({ name: `${role}#${i + 1}`, role, env: envOf(role) })),
    ),
    ...(options.cluster
      ? ports.map((p, i) => ({ name: `gateway#${i + 1}`, role: 'gateway' as const, env: envOf('gateway', { PORT: String(p) }) }))
      : [{ name: 'gateway', role: 'gateway' as const, env }]),
  ];
  const fleet = new Fleet(specs, logDir, log);
  const webhooks = new WebhookReceiver(rng(options.seed + runNo + 7919));
  const receiverUrl = await webhooks.start();
  const broker = new BrokerInspector(cluster?.url ?? options.amqpUrl, id, options.eventRetryBaseMs);
  const client = new CarefulClient({
    baseUrl: gatewayUrls,
    apiKeys: {},
    attemptTimeoutMs: options.rpcTimeoutMs + 3000,
    maxAttempts: 10,
    budgetMs: 40_000,
    conflictBudgetMs: options.rpcTimeoutMs * 2 + 2000,
    keyPrefix: `k${runNo}${randomBytes(2).toString('hex')}`,
  });
  const report: RunReport = {
    run: runNo,
    id,
    mode: options.mode,
    cluster: options.cluster,
    seed: options.seed + runNo - 1,
    ok: false,
    phases,
    writes: { total: 0, ok: 0, refused: 0, unknown: 0, unsettled: [], latencyMs: { p50: 0, p95: 0, max: 0 }, byOp: {} },
    seen: {},
    scenarios: {},
    faults: [],
    drain: { drained: false, ms: 0, state: { unpublished: {}, undelivered: {}, dueContracts: 0, webhooksPending: 0, queued: {} } },
    checks: [],
    logDir,
    logsKept: true,
    kept: options.keep,
  };
  // Past the deadline the run stops where it is: the race below gives up on the steps still under
  // way (they end on their own, against a fleet that no longer starts anything) and the teardown runs.
  let pastDeadline = false;
  let deadlineTimer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    if (options.deadlineSeconds === undefined) return;
    deadlineTimer = setTimeout(
      () => {
        pastDeadline = true;
        reject(new Error(`the run passed its deadline of ${options.deadlineSeconds}s during its ${current} phase`));
      },
      Math.max(0, t0 + options.deadlineSeconds * 1000 - Date.now()),
    );
  });
  const steps = async () => {
    fleet.startAll();
    const up = await waitReady(fleet, broker, gatewayUrls, 120_000);
    if (!up.ok) throw new Error(`the system did not start: ${up.missing.join('; ')}`);
    const keysDb = createDb(db.url, 'gateway', 1);
    try {
      for (const org of ORGS) client.setApiKey(org, (await createApiKey(keysDb, org, 'chaos')).key);
    } finally {
      await keysDb.destroy();
    }
    for (const org of ORGS) await webhooks.subscribe(client, org, receiverUrl);
    phase('startup');

    const load = new Load(client, ORGS, random);
    await load.seed();
    phase('seed');

    const loadStart = Date.now();
    let faultsDone = false;
    const shouldStop = () =>
      pastDeadline || client.writeCount >= options.maxWrites || (faultsDone && Date.now() - loadStart >= options.seconds * 1000);
    const faultCtx = { fleet, proxies, options, broker, gatewayUrl: gatewayUrls, cluster, pgbouncer };
    const plan = options.cluster ? clusterFaultPlan() : faultPlan(options.mode, fleet);
    const [faults] = await Promise.all([
      runFaults(plan, faultCtx, { startedAt: loadStart, spreadMs: options.seconds * 1000, stopped: () => pastDeadline }, log).finally(
        () => (faultsDone = true),
      ),
      load.run({ shouldStop, concurrency: options.concurrency, maxRecurring: 12 }),
    ]);
    report.faults = faults;
    report.scenarios = Object.fromEntries(load.scenarioCounts);
    phase('load');
    log(`load over: ${client.writeCount} writes`);

    const ready = await waitReady(fleet, broker, gatewayUrls, options.recoverTimeoutMs);
    if (!ready.ok) log(`not everything is up after the load: ${ready.missing.join('; ')}`);
    report.drain = await waitDrained(db.pool, broker, options.drainTimeoutMs);
    phase('drain');
    log(`drain: ${report.drain.drained ? 'idle' : 'NOT idle'} after ${(report.drain.ms / 1000).toFixed(1)}s; re-sending every key`);

    const ctx: CheckContext = { pool: db.pool, client, broker, fleet, faults: report.faults, orgs: ORGS, options, webhooks };
    const keyResults = await runChecks(replayChecks, ctx);
    phase('replay');
    const second = await waitDrained(db.pool, broker, options.drainTimeoutMs);
    if (!second.drained) report.drain = second;
    phase('drain2');
    log('checking');
    report.checks = [...keyResults, ...(await runChecks(stateChecks, ctx))];
    phase('checks');
  };
  try {
    const running = steps();
    running.catch(() => undefined);
    await Promise.race([running, deadline]);
  } catch (err) {
    report.error = (err as Error).stack ?? String(err);
  } finally {
    clearTimeout(deadlineTimer);
    summarizeWrites(report, client);
    await fleet.stopAll().catch(() => undefined);
    await pgbouncer?.stop().catch((err: Error) => log(`could not stop pgbouncer: ${err.message}`));
    await proxies.postgres.close();
    await proxies.rabbitmq.close();
    await webhooks.close();
    // The cluster is the run's own: stopped and removed whatever happened (its queues go with it).
    await broker.close();
    await cluster?.stop().catch((err: Error) => log(`could not stop the RabbitMQ cluster: ${err.message}`));
    if (!options.keep) {
      if (!cluster) await broker.destroyTopology().catch((err: Error) => log(`could not remove the queues: ${err.message}`));
      await db.drop().catch((err: Error) => log(`could not drop ${id}: ${err.message}`));
    } else {
      await db.pool.end().catch(() => undefined);
    }
    phase('teardown');
    phases['total'] = (Date.now() - t0) / 1000;
  }
  report.ok = !report.error && report.checks.length > 0 && report.checks.every((c) => c.ok);
  // A failed run keeps its process logs as evidence; a passed one keeps them only when asked to.
  report.logsKept = !report.ok || options.keep;
  if (!report.logsKept) rmSync(logDir, { recursive: true, force: true });
  return report;
}

function summarizeWrites(report: RunReport, client: CarefulClient): void {
  const byOp: RunReport['writes']['byOp'] = {};
  for (const w of client.writes) {
    const c = (byOp[w.op] ??= { ok: 0, refused: 0, unknown: 0, retried: 0 });
    c[w.outcome] += 1;
    if (w.attempts.length > 1) c.retried += 1;
  }
  const count = (o: string) => client.writes.filter((w) => w.outcome === o).length;
  const ms = client.writes
    .flatMap((w) => w.attempts.filter((a) => typeof a.status === 'number' && a.status < 300).map((a) => a.ms))
    .sort((a, b) => a - b);
  const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))] ?? 0;
  const latencyMs = { p50: at(0.5), p95: at(0.95), max: ms[ms.length - 1] ?? 0 };
  const unsettled = client.writes.filter((w) => w.outcome === 'unknown').map((w) => `${w.op} ${w.key}: ${describeAttempts(w.attempts)}`);
  report.writes = {
    total: client.writes.length,
    ok: count('ok'),
    refused: count('refused'),
    unknown: count('unknown'),
    unsettled,
    latencyMs,
    byOp,
  };
  report.seen = Object.fromEntries(client.seen);
}
