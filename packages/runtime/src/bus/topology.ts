import * as amqp from 'amqplib';
import { DEFAULT_RETRY_BASE_MS, retryTiers } from './backoff';

/** The names of every exchange and queue a bus declares under a prefix. */
export const rpcExchangeName = (prefix: string) => `${prefix}.rpc`;
export const eventsExchangeName = (prefix: string) => `${prefix}.events`;
export const rpcQueueName = (prefix: string, service: string) => `${prefix}.rpc.${service}`;

export interface RetryTier {
  queue: string;
  delayMs: number;
}

/** The queues of one event consumer. */
export interface ConsumerQueues {
  /** Bound to the events exchange; the consumer reads only this one. */
  main: string;
  /**
   * One queue per back-off delay, shortest first, each with a queue-level TTL that dead-letters
   * back to `main`. RabbitMQ expires messages only at a queue's head, so a single retry queue with
   * per-message TTLs held a 1 s retry behind a 64 s one; within a tier every message has the same
   * TTL, so the head is always the first to expire and no retry waits for a longer one. The delay
   * is in the name: a queue's TTL cannot change once declared (a redeclaration with another one is
   * refused), so another EVENT_RETRY_BASE_MS declares new tiers beside the old ones instead.
   */
  retries: RetryTier[];
  /** Messages that failed EVENT_MAX_ATTEMPTS times, kept for a person to look at. */
  dead: string;
  /**
   * The single retry queue of earlier deployments. It is no longer declared nor written to, and
   * needs nothing to drain: the broker itself expires what it still holds and dead-letters it to
   * `main` (within the longest back-off it holds, at most five minutes), where this consumer handles
   * it as any redelivery. It is listed only so removing a topology removes it too; on a live system
   * it can be deleted once empty.
   */
  legacyRetry: string;
}

export function consumerQueues(prefix: string, consumer: string, retryBaseMs = DEFAULT_RETRY_BASE_MS): ConsumerQueues {
  const main = `${prefix}.${consumer}`;
  return {
    main,
    retries: retryTiers(retryBaseMs).map((delayMs) => ({ queue: `${main}.retry.${delayMs}ms`, delayMs })),
    dead: `${main}.dead`,
    legacyRetry: `${main}.retry`,
  };
}

/**
 * The names a system with this prefix declares, for removing a whole run's topology. The retry
 * tiers depend on EVENT_RETRY_BASE_MS: pass the one the system ran with (default 1000 ms).
 */
export function topologyNames(
  prefix: string,
  services: readonly string[],
  subscriptions: readonly string[],
  opts: { retryBaseMs?: number } = {},
) {
  return {
    exchanges: [rpcExchangeName(prefix), eventsExchangeName(prefix)],
    queues: [
      ...services.map((s) => rpcQueueName(prefix, s)),
      ...subscriptions.flatMap((name) => {
        const q = consumerQueues(prefix, name, opts.retryBaseMs);
        return [q.main, ...q.retries.map((t) => t.queue), q.dead, q.legacyRetry];
      }),
    ],
  };
}

/** Deletes the given queues and exchanges (test and benchmark clean-up); missing ones are no error. */
export async function deleteTopology(url: string, names: { queues: readonly string[]; exchanges: readonly string[] }): Promise<void> {
  const conn = await amqp.connect(url);
  try {
    const ch = await conn.createChannel();
    for (const q of names.queues) await ch.deleteQueue(q).catch(() => undefined);
    for (const e of names.exchanges) await ch.deleteExchange(e).catch(() => undefined);
  } finally {
    await conn.close().catch(() => undefined);
  }
}
