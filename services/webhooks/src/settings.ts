import { promises as dns } from 'node:dns';
import { z } from 'zod';
import { DEFAULT_RETRY_SCHEDULE_MS, parseSchedule } from './domain/retry';
import type { SealingKey } from './domain/secret-box';

const flag = z
  .enum(['0', '1'])
  .default('0')
  .transform((v) => v === '1');

/**
 * The keys `npm start` and the test systems use (apps/launcher's DEVELOPMENT_DEFAULTS). Public in this
 * repository, so they protect nothing: refused outside development mode (NODE_ENV `development`,
 * which `npm start` sets, or `test`).
 */
const DEVELOPMENT_KEY: SealingKey = { id: 'dev', text: 'development-only-webhooks-key-do-not-use-in-production' };
export const DEVELOPMENT_SECRET_KEYS = `${DEVELOPMENT_KEY.id}:${DEVELOPMENT_KEY.text}`;

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;
const KEYS_FORM = '<id>:<32+ characters of random text>, comma-separated, the newest first';

/** WEBHOOKS_SECRET_KEYS read: `<id>:<text>` each, the first sealing (domain/secret-box.ts); else what is wrong. */
export function parseSealingKeys(text: string, developmentMode: boolean): SealingKey[] | string {
  const keys: SealingKey[] = [];
  for (const entry of text.split(',').map((e) => e.trim())) {
    const colon = entry.indexOf(':');
    const id = entry.slice(0, Math.max(colon, 0));
    const key = entry.slice(colon + 1);
    if (!KEY_ID.test(id)) return `each key is ${KEYS_FORM}; an id is 1 to 32 letters, digits, "_" or "-"`;
    if (key.length < 32) return `key "${id}" must be at least 32 characters of random text`;
    if (keys.some((k) => k.id === id)) return `key id "${id}" is given twice`;
    keys.push({ id, text: key });
  }
  if (!developmentMode && keys.some((k) => k.text === DEVELOPMENT_KEY.text))
    return 'holds the development key published in this repository, which protects nothing: set keys of your own (outside development mode, NODE_ENV development or test, it is refused)';
  return keys;
}

/** Development mode: NODE_ENV `development` (`npm start` sets it unless given) or `test`. */
export const inDevelopmentMode = (): boolean => ['development', 'test'].includes(process.env.NODE_ENV ?? '');

/** The webhooks service's settings, read from the environment beside the base ones. */
export const webhookSettingsSchema = z.object({
  /**
   * Encrypt the stored signing secrets: `<id>:<random text>` each, comma-separated, the newest first
   * (it seals; all open). Required: the service has no default, and refuses the launcher's
   * development keys outside development mode.
   */
  WEBHOOKS_SECRET_KEYS: z.string({ error: `is required: ${KEYS_FORM} (e.g. k1:$(openssl rand -base64 32))` }).transform((text, ctx) => {
    const keys = parseSealingKeys(text, inDevelopmentMode());
    if (typeof keys === 'string') ctx.addIssue({ code: 'custom', message: keys });
    return typeof keys === 'string' ? [] : keys;
  }),
  /** The single key before key ids: refused, so a deployment still setting it learns where it went. */
  WEBHOOKS_SECRET_KEY: z
    .unknown()
    .refine((v) => v === undefined, `is replaced by WEBHOOKS_SECRET_KEYS (${KEYS_FORM}): set WEBHOOKS_SECRET_KEYS=k1:<this key>`)
    .optional(),
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
  /** How long a call to RabbitMQ routing event types to the webhooks consumer may take. */
  WEBHOOKS_BROKER_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(2000),
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
