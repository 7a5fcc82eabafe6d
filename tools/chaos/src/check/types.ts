import type pg from 'pg';
import type { BrokerInspector } from '../broker';
import type { CarefulClient, Outcome, WriteRecord } from '../client';
import type { FaultRecord } from '../faults';
import type { ChaosOptions } from '../options';
import type { Fleet } from '../processes';
import type { WebhookReceiver } from '../webhooks';

export interface Violation {
  message: string;
  /** Ids, counts, keys: enough to find the case in the database or the logs. */
  evidence?: unknown;
}

export interface CheckResult {
  name: string;
  /** What the check verifies, in a line. */
  title: string;
  ok: boolean;
  /** What was looked at (counts), for the report. */
  summary: string;
  violations: Violation[];
  notes?: string[];
}

export interface CheckContext {
  /** The run's database on the real server. */
  pool: pg.Pool;
  client: CarefulClient;
  broker: BrokerInspector;
  fleet: Fleet;
  faults: FaultRecord[];
  orgs: readonly number[];
  options: ChaosOptions;
  /** The receiver every event of the organizations is delivered to as a webhook. */
  webhooks?: WebhookReceiver;
}

export interface Check {
  name: string;
  title: string;
  run(ctx: CheckContext): Promise<Omit<CheckResult, 'name' | 'title' | 'ok'>>;
}

/**
 * A write's outcome once the key check has re-sent it: a write whose retries ran out during the
 * faults is settled by what its key answers after recovery.
 */
export function settled(rec: WriteRecord): { outcome: Outcome; reply?: Record<string, unknown>; code?: string } {
  if (rec.outcome !== 'unknown') return { outcome: rec.outcome, reply: rec.reply, code: rec.code };
  const s = rec.replay?.status;
  if (typeof s === 'number' && s < 300) return { outcome: 'ok', reply: rec.replay?.body };
  if (typeof s === 'number' && s < 500 && s !== 409) return { outcome: 'refused', reply: rec.replay?.body, code: rec.replay?.code };
  return { outcome: 'unknown' };
}

/** The fault most recently injected before `at` (epoch ms), e.g. `kill -9 gateway +1.2s`. */
export function nearestFault(faults: readonly FaultRecord[], at: number): string {
  const f = [...faults].reverse().find((x) => x.startedAtMs <= at);
  return f ? `${f.name} +${((at - f.startedAtMs) / 1000).toFixed(1)}s` : 'before any fault';
}

export function byOp(writes: readonly WriteRecord[], op: string): WriteRecord[] {
  return writes.filter((w) => w.op === op);
}

/** At most `n` examples of a list, for evidence. */
export function examples<T>(items: readonly T[], n = 5): T[] {
  return items.slice(0, n);
}

export function num(v: unknown): number {
  return Number(v ?? 0);
}

/** Money compared in cents, so 10.1 and "10.10" agree. */
export function cents(v: unknown): number {
  return Math.round(Number(v ?? 0) * 100);
}
