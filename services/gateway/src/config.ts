import { z } from 'zod';
import { baseConfigSchema, type BaseConfig } from '@bo/runtime';
import { serviceNames } from '@bo/contracts';

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
   * Requests one organization may make per second, reads and writes apart, over all replicas
   * together; a second's worth may come at once. 0: no limit. Below what one machine serves, so one
   * organization's flood is limited before it slows everyone else (docs/api.md).
   */
  RATE_LIMIT_READS_PER_SECOND: z.coerce.number().min(0).max(1_000_000).default(100),
  RATE_LIMIT_WRITES_PER_SECOND: z.coerce.number().min(0).max(1_000_000).default(50),
  /** Requests of one organization a gateway replica has in flight to the services at once. 0: no cap. */
  RATE_LIMIT_IN_FLIGHT: z.coerce.number().int().min(0).max(1_000_000).default(16),
  /**
   * Requests with an unknown or revoked API key one client address may make per second on each
   * replica before its unproven keys are refused unread (each costs a database lookup). 0: no limit.
   */
  RATE_LIMIT_FAILED_AUTH_PER_SECOND: z.coerce.number().min(0).max(1_000_000).default(10),
  /** A replica takes this long's worth of an organization's rate from the shared bucket at a time. */
  RATE_LIMIT_LEASE_MS: z.coerce.number().int().min(1).max(10_000).default(100),
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
