import type { BaseConfig } from './config';
import type { Knex } from './db';
import { OPERATION_KEYS } from './idempotency';

/**
 * Bounded growth: outbox, inbox and idempotency rows are kept for their window, then deleted in
 * small batches, each its own short statement, so the purge never holds locks a write waits on.
 * Any number of instances may purge at once: a batch takes only rows no other batch holds, and
 * deleting what is gone does nothing.
 */
export interface RetentionWindows {
  /** Published events stay this long (for looking into what was sent). */
  outboxHours: number;
  /** Processed event ids stay this long: a redelivery older than this would be applied again. */
  inboxHours: number;
  /** A write's recorded reply answers retries this long (IDEMPOTENCY_TTL_HOURS). */
  idempotencyHours: number;
  batchSize: number;
}

interface Purge {
  table: string;
  key: string;
  expired: string;
  hours: (w: RetentionWindows) => number;
}

/** What each service schema purges; the key is unique, so a batch names exactly its rows. */
const PURGES: Purge[] = [
  {
    table: 'outbox',
    key: 'id',
    expired: 'published_at is not null and published_at < now() - make_interval(hours => ?)',
    hours: (w) => w.outboxHours,
  },
  { table: 'inbox', key: 'ctid', expired: 'processed_at < now() - make_interval(hours => ?)', hours: (w) => w.inboxHours },
  // Records from before OPERATION_KEYS: no longer written, they drain.
  { table: 'idempotency', key: 'ctid', expired: 'created_at < now() - make_interval(hours => ?)', hours: (w) => w.idempotencyHours },
  // The records every service shares: each service's purge takes expired ones, whichever service made them.
  { table: OPERATION_KEYS, key: 'ctid', expired: 'created_at < now() - make_interval(hours => ?)', hours: (w) => w.idempotencyHours },
];

/** Deletes what is past its window, batch by batch; answers how many rows went, per table. */
export async function purgeExpired(
  db: Knex,
  windows: RetentionWindows,
  purges: readonly Purge[] = PURGES,
  stopping: () => boolean = () => false,
): Promise<Record<string, number>> {
  const removed: Record<string, number> = {};
  for (const p of purges) {
    let total = 0;
    // A shutdown waits for one batch at most, not for a backlog of them.
    while (!stopping()) {
      // SKIP LOCKED: instances purging at once (every replica of every service purges the shared
      // key records) take different rows instead of queueing on each other's batches.
      const result = await db.raw<{ rowCount: number }>(
        `delete from ?? where ?? in (select ?? from ?? where ${p.expired} limit ? for update skip locked)`,
        [p.table, p.key, p.key, p.table, p.hours(windows), windows.batchSize],
      );
      const count = result.rowCount;
      total += count;
      if (count < windows.batchSize) break;
      // Let the writes waiting behind this batch go first.
      await new Promise((resolve) => setImmediate(resolve));
    }
    removed[p.table] = total;
  }
  return removed;
}

/**
 * The keys the gateway of an earlier version kept (it keeps none now: architecture.md), forgotten
 * after the same window as the services' records, so the table drains before a later version drops it.
 */
export const gatewayKeyPurge: Purge[] = [
  { table: 'idempotency_keys', key: 'ctid', expired: 'created_at < now() - make_interval(hours => ?)', hours: (w) => w.idempotencyHours },
];

export function retentionWindows(
  config: Pick<BaseConfig, 'OUTBOX_RETENTION_HOURS' | 'INBOX_RETENTION_HOURS' | 'IDEMPOTENCY_TTL_HOURS' | 'RETENTION_BATCH'>,
): RetentionWindows {
  return {
    outboxHours: config.OUTBOX_RETENTION_HOURS,
    inboxHours: config.INBOX_RETENTION_HOURS,
    idempotencyHours: config.IDEMPOTENCY_TTL_HOURS,
    batchSize: config.RETENTION_BATCH,
  };
}
