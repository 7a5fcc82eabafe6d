import type { BaseConfig } from '../config';
import type { Logger } from '../logger';
import { AmqpBus } from './amqp';
import { MemoryBus } from './memory';
import type { Bus } from './types';

export * from './types';
export { AmqpBus, deleteTopology, topologyNames, queueTypes, type QueueType } from './amqp';
export { amqpNodes } from './nodes';
export { connectToAny } from './topology';
export { MemoryBus, topicMatches } from './memory';
export { REPLY_TO, rpcRequestProperties } from './rpc-properties';

/** RabbitMQ when AMQP_URL is set, else the in-process transport. */
export async function createBus(config: BaseConfig, log: Logger): Promise<Bus> {
  if (!config.AMQP_URL) {
    return new MemoryBus({ log, maxAttempts: config.EVENT_MAX_ATTEMPTS, retryBaseMs: config.EVENT_RETRY_BASE_MS });
  }
  const bus = new AmqpBus({
    url: config.AMQP_URL,
    prefix: config.BUS_PREFIX,
    log,
    rpcPrefetch: config.RPC_PREFETCH,
    maxAttempts: config.EVENT_MAX_ATTEMPTS,
    retryBaseMs: config.EVENT_RETRY_BASE_MS,
    queueType: config.BUS_QUEUE_TYPE,
  });
  await bus.connect();
  return bus;
}
