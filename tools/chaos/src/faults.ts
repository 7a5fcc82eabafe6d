import type { PgBouncer, TcpProxy } from '@bo/testkit';
import type { RabbitCluster } from './cluster';
import type { ChaosOptions } from './options';
import type { Fleet } from './processes';
import { waitReady } from './readiness';
import type { BrokerInspector } from './broker';
import { restartPostgres, restartRabbit } from './servers';

/** What a fault can act on. */
export interface FaultContext {
  fleet: Fleet;
  proxies: { postgres: TcpProxy; rabbitmq: TcpProxy };
  options: ChaosOptions;
  /** The run's own RabbitMQ cluster and PgBouncer (--cluster). */
  cluster?: RabbitCluster;
  pgbouncer?: PgBouncer;
}

export interface Fault {
  name: string;
  /** Injects the fault and undoes it (restarts what it stopped); answers a note for the report. */
  inject(ctx: FaultContext): Promise<string>;
}

export interface FaultRecord {
  name: string;
  /** Milliseconds since the load started. */
  at: number;
  /** When it was injected (epoch ms), to tell which answers came during or after it. */
  startedAtMs: number;
  injectMs: number;
  note: string;
  recovered: boolean;
  recoverMs: number;
  missing: string[];
  error?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** kill -9 of one process; it is started again after a short while, as an orchestrator would. */
export function kill(name: string, downMs = 300): Fault {
  return {
    name: `kill -9 ${name}`,
    async inject({ fleet }) {
      const pid = fleet.pid(name);
      await fleet.kill9(name);
      await sleep(downMs);
      fleet.start(name);
      return `pid ${pid} killed, restarted after ${downMs} ms`;
    },
  };
}

/** Every established connection to the upstream reset at once. */
export function proxyCut(upstream: 'postgres' | 'rabbitmq'): Fault {
  return {
    name: `cut ${upstream} connections`,
    inject({ proxies }) {
      return Promise.resolve(`${proxies[upstream].cut()} connections reset`);
    },
  };
}

/** A server restart as the network sees it: every connection reset, new ones refused for a while. */
export function proxyOutage(upstream: 'postgres' | 'rabbitmq', downMs: number): Fault {
  return {
    name: `${upstream} down ${downMs / 1000}s (proxy)`,
    async inject({ proxies }) {
      const proxy = proxies[upstream];
      proxy.refuse(downMs);
      const n = proxy.cut();
      const before = proxy.stats().refused;
      await sleep(downMs);
      return `${n} connections reset, ${proxy.stats().refused - before} refused`;
    },
  };
}

/** Traffic stalls for a while (a partition), then the held connections are reset or flow on. */
export function proxyBlackhole(upstream: 'postgres' | 'rabbitmq', ms: number, thenCut: boolean): Fault {
  return {
    name: `${upstream} blackhole ${ms / 1000}s${thenCut ? ' then cut' : ''}`,
    async inject({ proxies }) {
      const before = proxies[upstream].stats().cut;
      await proxies[upstream].blackhole(ms, thenCut);
      return thenCut ? `${proxies[upstream].stats().cut - before} connections reset after the stall` : 'traffic resumed';
    },
  };
}

export function realPostgresRestart(): Fault {
  return {
    name: 'postgres restart (real)',
    async inject({ options }) {
      await restartPostgres(options.commands);
      return options.commands.postgresRestart;
    },
  };
}

export function realRabbitRestart(downMs: number): Fault {
  return {
    name: `rabbitmq stop/start (real, ${downMs / 1000}s down)`,
    async inject({ options }) {
      await restartRabbit(options.commands, downMs);
      return `${options.commands.rabbitStop}; ${downMs} ms; ${options.commands.rabbitStart}`;
    },
  };
}

/** kill -9 of one node of the run's RabbitMQ cluster; started again after `downMs`, it rejoins. */
export function rabbitNodeKill(node: number, downMs: number): Fault {
  return {
    name: `kill -9 rabbitmq node ${node} (${downMs / 1000}s down)`,
    async inject({ cluster }) {
      if (!cluster) throw new Error('no cluster in this run');
      await cluster.kill(node);
      await sleep(downMs);
      await cluster.startNode(node);
      return `node ${node} killed, started again after ${downMs} ms`;
    },
  };
}

/** PgBouncer killed -9 (every client and server connection drops) and started again on its port. */
export function pgbouncerRestart(downMs: number): Fault {
  return {
    name: `pgbouncer kill -9 and restart (${downMs / 1000}s down)`,
    async inject({ pgbouncer }) {
      if (!pgbouncer) throw new Error('no pgbouncer in this run');
      const pid = pgbouncer.pid();
      await pgbouncer.kill();
      await sleep(downMs);
      await pgbouncer.start();
      return `pid ${pid} killed, started again after ${downMs} ms`;
    },
  };
}

/**
 * The faults of a --cluster run: one replica of each service and one gateway killed, alternating
 * with a RabbitMQ node killed and started again (the node the first nodes' connections are on) and
 * a PgBouncer restart.
 */
export function clusterFaultPlan(): Fault[] {
  return [
    kill('invoicing#1'),
    rabbitNodeKill(1, 3000),
    kill('gateway#1'),
    kill('catalog#2'),
    pgbouncerRestart(1000),
    kill('sales#1'),
    kill('partners#2'),
    kill('webhooks#1'),
  ];
}

/**
 * The faults of a run: every process killed once, alternating with outages so consecutive faults
 * hit different parts. Full mode restarts the real broker and database; short mode makes the same
 * outages with the proxies (the servers may be shared with other tests).
 */
export function faultPlan(mode: 'full' | 'short', fleet: Fleet): Fault[] {
  const order =
    mode === 'full'
      ? ['partners#1', 'invoicing#1', 'catalog#2', 'gateway', 'sales#1', 'catalog#1', 'invoicing#2']
      : ['invoicing#1', 'gateway', 'sales#1', 'catalog#1', 'partners#1', 'catalog#2', 'invoicing#2'];
  const names = [...order.filter((n) => fleet.names.includes(n)), ...fleet.names.filter((n) => !order.includes(n))];
  const kills = names.map((n) => kill(n));
  const outages =
    mode === 'full'
      ? [
          proxyCut('postgres'),
          realRabbitRestart(5000),
          proxyOutage('postgres', 3000),
          realPostgresRestart(),
          proxyCut('rabbitmq'),
          proxyBlackhole('rabbitmq', 4000, true),
          proxyBlackhole('postgres', 2000, false),
        ]
      : [proxyOutage('postgres', 3000), proxyOutage('rabbitmq', 4000), proxyBlackhole('rabbitmq', 3000, true), proxyCut('postgres')];
  const plan: Fault[] = [];
  for (let i = 0; i < Math.max(kills.length, outages.length); i++) {
    const k = kills[i];
    const o = outages[i];
    if (k) plan.push(k);
    if (o) plan.push(o);
  }
  return plan;
}

/**
 * Injects the faults one at a time, spread evenly over `spreadMs` from `startedAt`: each waits for
 * its slot (or for the previous fault's recovery, if that took longer), is injected, and is
 * followed by a bounded wait until every process is up and consuming again.
 */
export async function runFaults(
  plan: readonly Fault[],
  ctx: FaultContext & { broker: BrokerInspector; gatewayUrl: string | readonly string[] },
  window: { startedAt: number; spreadMs: number; stopped?: () => boolean },
  log: (line: string) => void,
): Promise<FaultRecord[]> {
  const records: FaultRecord[] = [];
  const spacing = window.spreadMs / (plan.length + 1);
  for (const [i, fault] of plan.entries()) {
    if (window.stopped?.()) break;
    const slot = window.startedAt + spacing * (i + 1);
    if (Date.now() < slot) await sleep(slot - Date.now());
    const at = Date.now() - window.startedAt;
    log(`fault ${i + 1}/${plan.length} at ${(at / 1000).toFixed(1)}s: ${fault.name}`);
    const t0 = Date.now();
    let note = '';
    let error: string | undefined;
    try {
      note = await fault.inject(ctx);
    } catch (err) {
      error = (err as Error).message;
    }
    const injectMs = Date.now() - t0;
    const ready = await waitReady(ctx.fleet, ctx.broker, ctx.gatewayUrl, ctx.options.recoverTimeoutMs);
    log(
      `  ${note || error}; ${ready.ok ? `healthy again after ${ready.ms} ms` : `NOT healthy after ${ready.ms} ms: ${ready.missing.join('; ')}`}`,
    );
    records.push({
      name: fault.name,
      at,
      startedAtMs: t0,
      injectMs,
      note,
      recovered: ready.ok,
      recoverMs: ready.ms,
      missing: ready.missing,
      error,
    });
  }
  return records;
}
