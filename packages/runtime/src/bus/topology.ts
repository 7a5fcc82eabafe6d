import * as amqp from 'amqplib';
import { DEFAULT_RETRY_BASE_MS, retryTiers } from './backoff';
import { amqpNodes } from './nodes';

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

/**
 * How durable queues are declared (BUS_QUEUE_TYPE). `classic`: one broker node holds each queue.
 * `quorum`: each queue is replicated over (up to five of) a cluster's nodes by Raft and stays
 * available while a majority of its members runs. Only durable, non-exclusive, non-auto-delete
 * queues can be quorum queues; every queue this bus declares is one (RPC requests, event queues,
 * their retry tiers and dead letters), and replies travel over direct reply-to, which is no queue.
 * A queue's type is fixed when it is made: switching a running system means a new BUS_PREFIX (or a
 * new vhost), as a redeclaration with another type is refused.
 */
export type QueueType = 'classic' | 'quorum';
export const queueTypes = ['classic', 'quorum'] as const;

/**
 * Deliveries of one message from a quorum event queue before the broker parks it in the `.dead`
 * queue: counted only when a message goes back unacknowledged (a consumer killed or cut off while
 * handling it, a failed park), never for a handler's failure, which is retried by the tiers and
 * counted by `x-attempt`. It stops a message that kills every consumer that takes it from doing so
 * forever, and is RabbitMQ 4's default.
 */
export const QUORUM_DELIVERY_LIMIT = 20;

/** What a queue is for, which decides its arguments. */
export type QueueRole =
  { role: 'rpc' } | { role: 'main'; dead: string } | { role: 'retry'; delayMs: number; main: string } | { role: 'dead' };

/**
 * The declaration of one durable queue. Classic queues are declared as they always were. A quorum
 * queue moves messages to another queue (a tier expiring into the main queue, a message past its
 * delivery limit into the dead letters) at least once: the broker keeps the message until the
 * target confirmed it (`x-dead-letter-strategy: at-least-once`, which needs `x-overflow:
 * reject-publish`), where a classic queue's dead-lettering may lose it when a node goes down.
 * RPC queues dead-letter nothing: a request past its expiration (its caller's timeout) is dropped,
 * as on a classic queue, and a request redelivered after its consumer died is redelivered until it
 * expires.
 */
export function queueDeclaration(type: QueueType, queue: QueueRole): amqp.Options.AssertQueue {
  const args: Record<string, unknown> = {};
  if (queue.role === 'retry') {
    // Waits out the tier's delay, then dead-letters back to the main queue through the default exchange.
    Object.assign(args, { 'x-message-ttl': queue.delayMs, 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': queue.main });
  }
  if (type === 'quorum') {
    args['x-queue-type'] = 'quorum';
    if (queue.role === 'main') {
      Object.assign(args, {
        'x-delivery-limit': QUORUM_DELIVERY_LIMIT,
        'x-dead-letter-exchange': '',
        'x-dead-letter-routing-key': queue.dead,
      });
    }
    if (queue.role === 'main' || queue.role === 'retry')
      Object.assign(args, { 'x-dead-letter-strategy': 'at-least-once', 'x-overflow': 'reject-publish' });
  }
  return { durable: true, arguments: args };
}

/** Deletes the given queues and exchanges (test and benchmark clean-up); missing ones are no error. */
export async function deleteTopology(url: string, names: { queues: readonly string[]; exchanges: readonly string[] }): Promise<void> {
  const conn = await connectToAny(url);
  try {
    const ch = await conn.createChannel();
    for (const q of names.queues) await ch.deleteQueue(q).catch(() => undefined);
    for (const e of names.exchanges) await ch.deleteExchange(e).catch(() => undefined);
  } finally {
    await conn.close().catch(() => undefined);
  }
}

/** A plain connection to the first node of an AMQP_URL (one node or a list) that answers. */
export async function connectToAny(url: string): Promise<amqp.ChannelModel> {
  let failure: unknown;
  for (const node of amqpNodes(url)) {
    try {
      return await amqp.connect(node);
    } catch (err) {
      failure = err;
    }
  }
  throw failure;
}
