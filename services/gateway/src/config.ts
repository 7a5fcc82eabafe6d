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
