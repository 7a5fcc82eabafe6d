/**
 * When a call is sent again, and after how long. Only answers that say nothing took effect (or that
 * the outcome is unknown, for a write carrying its Idempotency-Key) are retried: a refusal (4xx) would
 * be refused again and a bug (500) is not cured by repetition.
 */
export interface RetryPolicy {
  /** Tries in all, the first one included; 1 means never retry. */
  attempts: number;
  /** Wait before the first retry; each further retry waits twice as long, up to `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Wait a random time between half the delay and the delay, so clients failed together do not retry together. */
  jitter: boolean;
  /**
   * An answer's `Retry-After` (a 429 `rate_limited` always has one) is waited for, at least, before
   * the next attempt; one asking for longer than this is not waited for: the call throws at once.
   */
  maxRetryAfterMs: number;
  /** Told before each retry (logging, metrics). */
  onRetry?: (retry: RetryNotice) => void;
}

export interface RetryNotice {
  operation: string;
  /** The attempt about to be made (2 for the first retry). */
  attempt: number;
  delayMs: number;
  /** The status and code answered, or `network` when no answer came. */
  reason: string;
}

export const defaultRetryPolicy: RetryPolicy = { attempts: 4, baseDelayMs: 250, maxDelayMs: 4000, jitter: true, maxRetryAfterMs: 60_000 };

/**
 * The policy a client runs with: the defaults, overridden by the fields given. A field given as
 * `undefined` keeps its default (spread alone would copy it, and `attempts: undefined` retried forever
 * with NaN waits); a value that cannot work is refused here rather than on the first failure.
 */
export function retryPolicyOf(overrides: Partial<RetryPolicy> | false | undefined): RetryPolicy {
  if (overrides === false) return { ...defaultRetryPolicy, attempts: 1 };
  const given = Object.fromEntries(Object.entries(overrides ?? {}).filter(([, value]) => value !== undefined)) as Partial<RetryPolicy>;
  const policy: RetryPolicy = { ...defaultRetryPolicy, ...given };
  if (!(Number.isInteger(policy.attempts) && policy.attempts >= 1))
    throw new TypeError(`retry.attempts must be a whole number of at least 1, got ${policy.attempts}`);
  for (const field of ['baseDelayMs', 'maxDelayMs', 'maxRetryAfterMs'] as const) {
    const value = policy[field];
    if (!(Number.isFinite(value) && value >= 0))
      throw new TypeError(`retry.${field} must be a number of milliseconds of at least 0, got ${value}`);
  }
  return policy;
}

/** What one attempt ended with, as far as retrying is concerned. */
export type AttemptOutcome =
  | { kind: 'network' }
  | {
      kind: 'answer';
      status: number;
      /** The envelope's error code; undefined when the answer was not the API's envelope. */ code?: string;
      /** The answer's `Retry-After`, in ms, if it had a valid one. */
      retryAfterMs?: number;
    };

/** The gateway (or a service behind it) could not be reached or did not answer: nothing was refused. */
const UNAVAILABLE_CODES = new Set(['service_unavailable', 'timeout', 'outcome_unknown']);

/**
 * Whether sending the call again is safe and may help. A write is always sent with an
 * Idempotency-Key, so its retries replay one effect instead of repeating it.
 */
export function isRetryable(outcome: AttemptOutcome, write: boolean): boolean {
  if (outcome.kind === 'network') return true;
  const { status, code } = outcome;
  // Refused before it ran (the organization's rate or requests in flight): nothing happened, so a read
  // and a write (sent again with its key) alike may go again once Retry-After has passed.
  if (status === 429) return code === 'rate_limited';
  // The key is still claimed by an earlier attempt whose answer is not known yet.
  if (status === 409) return write && code === 'idempotency_conflict';
  if (status === 503 || status === 504) return code === undefined || UNAVAILABLE_CODES.has(code);
  // A proxy in front of the gateway that could not reach it answers 502 in its own format.
  if (status === 502) return code === undefined;
  return false;
}

/**
 * The wait before attempt `attempt` (2 for the first retry): exponential, capped, optionally
 * jittered; never shorter than the answer's `Retry-After`.
 */
export function retryDelay(policy: RetryPolicy, attempt: number, random: () => number = Math.random, retryAfterMs = 0): number {
  const full = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 2));
  return Math.max(retryAfterMs, policy.jitter ? Math.round(full / 2 + (random() * full) / 2) : full);
}

/**
 * A `Retry-After` field's wait in ms: delay-seconds, or an HTTP-date from `now`; undefined when absent
 * or not one of those (RFC 9110 §10.2.3).
 */
export function retryAfterMs(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) || !/[a-z]/i.test(text) ? undefined : Math.max(0, at - now);
}
