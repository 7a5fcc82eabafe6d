import type { Options } from 'amqplib';

/** RabbitMQ's direct reply-to: replies come back to the channel that sent the request, with no queue of its own. */
export const REPLY_TO = 'amq.rabbitmq.reply-to';

/**
 * The properties an RPC request is published with: direct reply-to, a correlation id, `mandatory`
 * (no binding: returned at once), not persistent, and an expiration and deadline of the caller's
 * timeout, so a request nobody waits for any more is dropped by the broker, never executed late.
 * The bench's stand-ins publish with these too, so they cost the broker what the real client does.
 */
export function rpcRequestProperties(
  operation: string,
  correlationId: string,
  timeoutMs: number,
  headers: Record<string, unknown>,
): Options.Publish {
  return {
    correlationId,
    replyTo: REPLY_TO,
    expiration: String(timeoutMs),
    mandatory: true,
    persistent: false,
    contentType: 'application/json',
    type: operation,
    headers: { ...headers, 'x-deadline': Date.now() + timeoutMs },
  };
}
