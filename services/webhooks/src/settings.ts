import { promises as dns } from 'node:dns';
import { z } from 'zod';
import { DEFAULT_RETRY_SCHEDULE_MS, parseSchedule } from './domain/retry';

const flag = z
  .enum(['0', '1'])
  .default('0')
  .transform((v) => v === '1');

/** The webhooks service's settings, read from the environment beside the base ones. */
export const webhookSettingsSchema = z.object({
  /** Encrypts the stored signing secrets (any random text of 32 characters or more); required: there is no default outside the launcher's development one. */
  WEBHOOKS_SECRET_KEY: z.string().min(32, 'must be at least 32 characters of random text'),
  /** 1: http URLs are accepted too (development). */
  WEBHOOKS_ALLOW_HTTP: flag,
  /** 1: targets on loopback, private, link-local and metadata addresses are allowed (tests, local development). */
  WEBHOOKS_ALLOW_PRIVATE: flag,
  /** How long one attempt may take, connecting and answering included. */
  WEBHOOKS_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** Waits after each failed attempt in a row, comma-separated milliseconds (8 attempts over about 27.6 h by default). */
  WEBHOOKS_RETRY_SCHEDULE_MS: z
    .string()
    .default(DEFAULT_RETRY_SCHEDULE_MS.join(','))
    .transform((text, ctx) => {
      const schedule = parseSchedule(text);
      if (!schedule) ctx.addIssue({ code: 'custom', message: 'must be milliseconds separated by commas' });
      return schedule ?? [];
    }),
  /** An endpoint with no successful delivery for this long (and failing now) is disabled. */
  WEBHOOKS_DISABLE_AFTER_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(3 * 24 * 3600_000),
  /** How long the secret before a rotation keeps signing beside the new one. */
  WEBHOOKS_ROTATION_OVERLAP_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(24 * 3600_000),
  /** Attempts in flight per process, all endpoints together. */
  WEBHOOKS_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(1000).default(32),
  /** Attempts in flight to one endpoint, counting every instance's. */
  WEBHOOKS_PER_ENDPOINT: z.coerce.number().int().min(1).max(100).default(4),
  /** Attempts in flight to the endpoints of one organization, counting every instance's: its share, so one tenant's receivers cannot take every slot. */
  WEBHOOKS_PER_ORGANIZATION: z.coerce.number().int().min(1).max(1000).default(16),
  /** How long a DNS lookup of a target may take (at create, update and each attempt). */
  WEBHOOKS_DNS_TIMEOUT_MS: z.coerce.number().int().min(50).max(30_000).default(2000),
  /** Nameservers to ask (IP or IP:port, comma-separated) instead of the system's (/etc/resolv.conf). */
  WEBHOOKS_DNS_SERVERS: z
    .string()
    .default('')
    .transform((text, ctx) => {
      const servers = text
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      try {
        if (servers.length) new dns.Resolver().setServers(servers);
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be IP addresses (with :port if not 53), comma-separated' });
      }
      return servers;
    }),
  /** How often the dispatcher looks for due deliveries when nothing woke it. */
  WEBHOOKS_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
  /** The most of a receiver's answer read (and kept, up to 1 kB, in the log). */
  WEBHOOKS_MAX_RESPONSE_BYTES: z.coerce.number().int().min(0).max(1_048_576).default(65_536),
  /** How often the event types routed to the webhooks consumer are set to what the enabled endpoints want (and at start). */
  WEBHOOKS_ROUTES_RECONCILE_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  /** Delivered and failed deliveries are purged this many days after they were made, and the pending ones of an endpoint disabled this long. */
  WEBHOOKS_LOG_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
});
export type WebhookSettings = z.infer<typeof webhookSettingsSchema>;

/** The service's settings: its config object carries them parsed (serviceConfigSchema extends the base with them). */
export function webhookSettings(config: object): WebhookSettings {
  return config as WebhookSettings;
}
