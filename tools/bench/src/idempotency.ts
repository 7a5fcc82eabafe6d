import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { AmqpBus, createLogger, type RequestMeta } from '@bo/runtime';
import { createPartnerBody } from './scenarios';
import { percentile, ratio } from './stats';
import { ORG } from './system';

const OPERATION = 'partners.partner.create';
const TIMEOUT_MS = 5000;

export interface BusLoadResult {
  rps: number;
  p50: number;
  p99: number;
  calls: number;
  errors: number;
}

export interface IdempotencyCost {
  connections: number;
  seconds: number;
  /** No operation key: the handler alone, as internal calls run (the path before service-level records). */
  without: BusLoadResult;
  /** A fresh operation key per call: the reply recorded with the effect, as every client write now runs. */
  with: BusLoadResult;
  /** with ÷ without. */
  ratio: { rps?: number; p50?: number; p99?: number };
}

/**
 * What the service-level idempotency record costs, isolated from HTTP and the gateway: the same
 * `partners.partner.create` RPC sent straight over the bus of the running RabbitMQ system, with
 * bounded concurrency, once without an operation key and once with a fresh one per call. The two
 * alternate in halves (without, with, with, without), so a drift during the run (the table growing,
 * the machine's other load) weighs on both alike.
 */
export async function measureIdempotencyCost(opts: {
  amqpUrl: string;
  busPrefix: string;
  runs: Array<{ connections: number; seconds: number }>;
}): Promise<IdempotencyCost[]> {
  const bus = new AmqpBus({ url: opts.amqpUrl, prefix: opts.busPrefix, log: createLogger('bench', 'warn') });
  await bus.connect();
  try {
    const payload = JSON.parse(createPartnerBody) as Record<string, unknown>;
    const call = (withKey: boolean) => async () => {
      const meta: RequestMeta = {
        orgId: ORG,
        userId: 'bench',
        requestId: randomUUID(),
        ...(withKey ? { operationKey: randomUUID() } : {}),
      };
      const reply = await bus.requestRaw(OPERATION, payload, meta, TIMEOUT_MS);
      return reply.ok;
    };
    // Warm both paths up.
    await drive(call(false), 8, 1);
    await drive(call(true), 8, 1);
    const out: IdempotencyCost[] = [];
    for (const { connections, seconds } of opts.runs) {
      const half = seconds / 2;
      const a1 = await drive(call(false), connections, half);
      const b1 = await drive(call(true), connections, half);
      const b2 = await drive(call(true), connections, half);
      const a2 = await drive(call(false), connections, half);
      const without = condense([a1, a2]);
      const withKey = condense([b1, b2]);
      out.push({
        connections,
        seconds,
        without,
        with: withKey,
        ratio: { rps: ratio(withKey.rps, without.rps), p50: ratio(withKey.p50, without.p50), p99: ratio(withKey.p99, without.p99) },
      });
    }
    return out;
  } finally {
    await bus.close();
  }
}

interface Window {
  latencies: number[];
  errors: number;
  seconds: number;
}

/** `concurrency` callers each calling again as soon as answered, for `seconds`. */
async function drive(call: () => Promise<boolean>, concurrency: number, seconds: number): Promise<Window> {
  const latencies: number[] = [];
  let errors = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  const caller = async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      try {
        if (await call()) latencies.push(performance.now() - t0);
        else errors++;
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, caller));
  return { latencies, errors, seconds: (performance.now() - start) / 1000 };
}

function condense(windows: Window[]): BusLoadResult {
  const all = windows.flatMap((w) => w.latencies).sort((a, b) => a - b);
  const seconds = windows.reduce((s, w) => s + w.seconds, 0);
  return {
    rps: seconds > 0 ? all.length / seconds : 0,
    p50: percentile(all, 50),
    p99: percentile(all, 99),
    calls: all.length,
    errors: windows.reduce((s, w) => s + w.errors, 0),
  };
}
