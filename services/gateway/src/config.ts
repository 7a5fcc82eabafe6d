import { z } from 'zod';
import { baseConfigSchema, type BaseConfig } from '@bo/runtime';
import { serviceNames } from '@bo/contracts';
import { trustedProxies } from './http/client-address';

export const gatewayConfigSchema = baseConfigSchema.extend({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Largest JSON body accepted; larger ones get 413. */
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(50 * 1024 * 1024)
    .default(1024 * 1024),
  API_KEY_CACHE_MS: z.coerce.number().int().min(0).max(600_000).default(5000),
  /**
   * Cost one organization may spend per second (docs/api.md: a read costs 1, a write 2, a report or
   * a document render 10), reads and writes apart, over all replicas together; a second's worth may
   * come at once. 0: no limit. Below what one machine serves, so one organization's flood is limited
   * before it slows everyone else (docs/api.md).
   */
  RATE_LIMIT_READS_PER_SECOND: z.coerce.number().min(0).max(1_000_000).default(100),
  RATE_LIMIT_WRITES_PER_SECOND: z.coerce.number().min(0).max(1_000_000).default(100),
  /** Cost of one organization's requests in flight at once, over all replicas together (each takes its share). 0: no cap. */
  RATE_LIMIT_IN_FLIGHT: z.coerce.number().int().min(0).max(1_000_000).default(16),
  /**
   * Requests one client may make per second on each replica that no valid API key covers: none,
   * unknown or revoked, and the routes that need none (/health, /openapi.json, /docs, 404, 405).
   * A second's worth may come at once. 0: no limit.
   */
  RATE_LIMIT_ANONYMOUS_PER_SECOND: z.coerce.number().min(0).max(1_000_000).default(20),
  /** A replica takes this long's worth of an organization's rate from the shared bucket at a time. */
  RATE_LIMIT_LEASE_MS: z.coerce.number().int().min(1).max(10_000).default(100),
  /**
   * The proxies whose X-Forwarded-For is believed (client-address.ts): comma-separated addresses or
   * CIDR blocks. Empty: none, a client is the socket's address.
   */
  TRUST_PROXY: z
    .string()
    .default('')
    .transform((v, ctx) => {
      try {
        return trustedProxies(v);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    }),
  HEALTH_SERVICES: z
    .string()
    .default(serviceNames.join(','))
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
});
export type GatewayConfig = z.infer<typeof gatewayConfigSchema> & BaseConfig;
