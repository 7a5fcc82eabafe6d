import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { deleteTopology } from '@bo/runtime';
import { freePort } from '@bo/launcher';
import { forkReady } from '../ceiling/launch';
import type { CeilingRoute } from '../ceiling/shared';
import { stopChild } from '../system';
import { CONSUMERS, FLOOR_ROLES, RPC_OF, consumerQueue, rpcQueue, type FloorConfig } from './shared';
import { DRAFTS, SCHEMA, SEED, SEED_AFTER } from './sql';

const ORG = 1;
const PARTNERS = 50;

/** The running floor: its HTTP side's URL and token, its processes, and what was seeded. */
export interface FloorStandIn {
  base: string;
  token: string;
  pids: number[];
  databaseUrl: string;
  /** The seeded customers (also in sales' and invoicing's read models). */
  partners: number[];
  /** `n` draft invoices of three lines, one per validation. */
  drafts(n: number): Promise<number[]>;
  readonly stop: () => Promise<void>;
}

/**
 * Starts the floor: a database of its own (schemas, 50 customers, the lines' products), the four
 * services (partners, invoicing, catalog, sales), each its own Node process, then the ceiling's
 * very HTTP process in front of them, serving on node's http rather than Express (CeilingConfig.front). `routes` map the HTTP paths to the floor's routing keys, with
 * the real system's reply of each (answered by the writes).
 */
export async function startFloor(
  opts: { pgUrl: string; amqpUrl: string },
  routes: CeilingRoute[],
  products: readonly number[],
  { required = false }: { required?: boolean } = {},
): Promise<FloorStandIn> {
  const stamp = Date.now().toString(36);
  const kind = required ? 'floorreq' : 'floor';
  const prefix = `bench_${kind}_${stamp}`;
  const dbName = `bo_bench_${stamp}_${kind}`;
  await adminQuery(opts.pgUrl, `create database ${dbName}`);
  const url = new URL(opts.pgUrl);
  url.pathname = `/${dbName}`;
  const databaseUrl = url.toString();

  const config: FloorConfig = {
    amqpUrl: opts.amqpUrl,
    exchange: `${prefix}.rpc`,
    events: `${prefix}.events`,
    queue: `${prefix}.rpc.gateway`,
    prefix,
    port: await freePort(),
    token: `bo_${randomBytes(32).toString('hex')}`,
    timeoutMs: 5000,
    prefetch: 32,
    eventPrefetch: 16,
    poolSize: 10,
    databaseUrl,
    routes,
    // The least the design needs in front: node's http, as the gateway serves operations.
    front: 'node',
    ...(required ? { required } : {}),
  };
  const children: ChildProcess[] = [];
  const seed = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await Promise.all(children.map((c) => stopChild(c, 'SIGTERM', 10_000)));
    await seed.end().catch(() => undefined);
    await deleteTopology(opts.amqpUrl, {
      queues: [
        ...FLOOR_ROLES.filter((r) => RPC_OF[r].length).map((r) => rpcQueue(prefix, r)),
        ...CONSUMERS.map((c) => consumerQueue(prefix, c.name)),
      ],
      exchanges: [config.exchange, config.events],
    }).catch(() => undefined);
    await adminQuery(opts.pgUrl, `drop database if exists ${dbName} with (force)`);
  };
  try {
    await seed.query(SCHEMA);
    const partners = (await seed.query<{ id: number }>(SEED, [ORG, products, PARTNERS])).rows.map((r) => r.id);
    await seed.query(SEED_AFTER);
    // The services declare their queues and bindings before the HTTP side sends anything.
    for (const role of FLOOR_ROLES) children.push(await forkReady(join(__dirname, 'worker.js'), { ...config, role }));
    children.push(await forkReady(join(__dirname, '..', 'ceiling', 'http.js'), config));
    return {
      base: `http://127.0.0.1:${config.port}`,
      token: config.token,
      pids: children.map((c) => c.pid as number),
      databaseUrl,
      partners,
      drafts: async (n) => (await seed.query<{ id: number }>(DRAFTS, [ORG, n, partners, products])).rows.map((r) => r.id),
      stop,
    };
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
}

async function adminQuery(pgUrl: string, statement: string): Promise<void> {
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}
