import { z } from 'zod';
import { isAmqpNodeList } from './bus/nodes';
import { queueTypes } from './bus/topology';

export class ConfigError extends Error {}

/** Settings every process reads; each service may extend the schema. */
export const baseConfigSchema = z.object({
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL'),
  /** One RabbitMQ node's URL, or a comma-separated list of a cluster's nodes (bus/nodes.ts). */
  AMQP_URL: z.string().refine(isAmqpNodeList, 'must be an amqp:// URL, or a comma-separated list of them').optional(),
  /** How durable queues are declared: `quorum` replicates each over a cluster's nodes (bus/topology.ts). */
  BUS_QUEUE_TYPE: z.enum(queueTypes).default('classic'),
  BUS_PREFIX: z
    .string()
    .regex(/^[a-z0-9_-]+$/i, 'may hold only letters, digits, "_" and "-"')
    .default('bo'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  RPC_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(5000),
  /** RPC requests RabbitMQ hands a service instance at once, of which RPC_CONCURRENCY run, taken by organization in turn (fair-turns.ts). */
  RPC_PREFETCH: z.coerce.number().int().min(1).max(1000).default(32),
  RPC_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(16),
  DB_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  /** `off` sends every statement unnamed, for PgBouncer in transaction mode without prepared-statement support (prepared.ts). */
  DB_PREPARED_STATEMENTS: z.enum(['on', 'off']).default('on'),
  EVENT_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(8),
  EVENT_RETRY_BASE_MS: z.coerce.number().int().min(1).max(600_000).default(1000),
  OUTBOX_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
  /**
   * How long a published event waits for a store statement of its service to carry its mark sent
   * before the relay marks it alone (outbox.ts, ridingMarks): at most half the writer's claim.
   */
  OUTBOX_MARK_DELAY_MS: z.coerce.number().int().min(10).max(5_000).default(1000),
  /** How long a write's recorded reply answers a retry with the same Idempotency-Key (gateway and services). */
  IDEMPOTENCY_TTL_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 30)
    .default(24),
  /** Published outbox rows are purged after this many hours. */
  OUTBOX_RETENTION_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 365)
    .default(24),
  /** Processed event ids are purged after this many hours; a redelivery older than that would apply again. */
  INBOX_RETENTION_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 365)
    .default(24 * 7),
  /** How often expired outbox, inbox and idempotency rows are purged, and how many per statement. */
  RETENTION_INTERVAL_MS: z.coerce.number().int().min(100).max(86_400_000).default(60_000),
  RETENTION_BATCH: z.coerce.number().int().min(1).max(100_000).default(500),
  /** A service process serves GET /metrics on this port when set (the gateway serves it on its own port anyway). */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** OTLP/HTTP collector base URL (traces go to <url>/v1/traces); tracing is off when unset. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .string()
    .regex(/^https?:\/\//, 'must be an http:// or https:// URL')
    .optional(),
});
export type BaseConfig = z.infer<typeof baseConfigSchema>;

/** Reads and validates environment variables; a bad value stops start-up with a message naming it. */
export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.output<S> {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const result = schema.safeParse(cleaned);
  if (result.success) return result.data;
  const problems = result.error.issues.map((i) => `${i.path.join('.') || 'environment'}: ${i.message}`);
  throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
}
