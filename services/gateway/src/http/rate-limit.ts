import type { ServerResponse } from 'node:http';
import type { Envelope } from '@bo/contracts';
import type { GatewayConfig } from '../config';
import { PgBucketStore } from '../rate-limit/bucket-store';
import { RateLimiter, ratePolicy, type Admission, type RatePolicy, type RequestKind } from '../rate-limit/limiter';
import type { GatewayDeps } from './deps';
import type { Observed } from './observe';
import { errorEnvelope } from './reply';

export type RateLimitConfig = Pick<
  GatewayConfig,
  'RATE_LIMIT_READS_PER_SECOND' | 'RATE_LIMIT_WRITES_PER_SECOND' | 'RATE_LIMIT_IN_FLIGHT' | 'RATE_LIMIT_LEASE_MS'
>;

/** The limits of the operations (operations.ts): who may go on, and the 429 of who may not. */
export interface RateLimits {
  /**
   * Undefined when the request of the key's organization may go on: it then holds one of the
   * organization's in-flight places until release(locals). Otherwise the 429 to answer, its headers
   * set on `res`.
   */
  admit(res: ServerResponse, locals: Observed, orgId: number, write: boolean): Promise<Envelope | undefined>;
  /** Gives back the place an admitted request held (nothing for one that was not admitted). */
  release(locals: Observed): void;
}

/**
 * The shared bucket is waited for this long at most (a first lease may open a connection on a busy
 * machine); past it the replica limits alone for STORE_RETRY_MS.
 */
const STORE_WAIT_MS = 2000;
const STORE_RETRY_MS = 5000;

export function createRateLimits(deps: Pick<GatewayDeps, 'db' | 'log'> & { config: RateLimitConfig }): RateLimits {
  const { config, log } = deps;
  const policies = {
    reads: ratePolicy(config.RATE_LIMIT_READS_PER_SECOND, config.RATE_LIMIT_LEASE_MS),
    writes: ratePolicy(config.RATE_LIMIT_WRITES_PER_SECOND, config.RATE_LIMIT_LEASE_MS),
  };
  const inFlight = config.RATE_LIMIT_IN_FLIGHT > 0 ? config.RATE_LIMIT_IN_FLIGHT : undefined;
  const limiter = new RateLimiter(
    new PgBucketStore(deps.db),
    { ...policies, inFlight, storeWaitMs: STORE_WAIT_MS, storeRetryMs: STORE_RETRY_MS },
    (err) =>
      log.warn(
        { err: (err as Error).message },
        `rate limits: the shared bucket is unavailable; this replica limits alone for ${STORE_RETRY_MS} ms`,
      ),
  );
  const holding = new WeakMap<Observed, number>();
  return {
    async admit(res, locals, orgId, write) {
      const admission = await limiter.admit(orgId, write ? 'writes' : 'reads');
      if (admission.admitted) {
        holding.set(locals, orgId);
        return undefined;
      }
      return rateLimited(res, admission, policies, inFlight);
    },
    release(locals) {
      const orgId = holding.get(locals);
      if (orgId === undefined) return;
      holding.delete(locals);
      limiter.release(orgId);
    },
  };
}

/** A policy as the `RateLimit-Policy` field states it (IETF draft-ietf-httpapi-ratelimit-headers). */
export function policyField(name: RequestKind | 'in-flight' | 'failed-auth', policy: RatePolicy | number): string {
  if (typeof policy === 'number') return `"${name}";q=${policy};qu="concurrent-requests"`;
  return `"${name}";q=${policy.burst};w=${Math.max(1, Math.ceil(policy.burst / policy.perSecond))}`;
}

/**
 * The 429 of a refused request: `Retry-After` in whole seconds (at least 1), and the policy that
 * refused with nothing left under it (`RateLimit: "reads";r=0;t=1`) and its terms (`RateLimit-Policy`),
 * as HTTP headers and in the envelope's `headers`.
 */
export function rateLimited(
  res: ServerResponse,
  refusal: Extract<Admission, { admitted: false }>,
  policies: Partial<Record<RequestKind, RatePolicy>>,
  inFlight: number | undefined,
): Envelope {
  const seconds = retryAfterSeconds(refusal.retryAfterMs);
  const name = refusal.policy;
  const policy = name === 'in-flight' ? inFlight : policies[name];
  const message =
    name === 'in-flight'
      ? `This organization already has ${inFlight} requests in flight, the most allowed at once; retry after ${seconds} s`
      : `This organization is over its rate limit of ${policies[name]?.perSecond} ${name} per second; retry after ${seconds} s`;
  return refused(res, name, seconds, policy === undefined ? undefined : policyField(name, policy), message);
}

/** The 429 of a request from an address that failed authentication too often (UnprovenKeyLimiter). */
export function failedAuthLimited(res: ServerResponse, waitMs: number, policy: RatePolicy): Envelope {
  const seconds = retryAfterSeconds(waitMs);
  return refused(
    res,
    'failed-auth',
    seconds,
    policyField('failed-auth', policy),
    `Too many requests from this address failed authentication (at most ${policy.perSecond} a second); retry after ${seconds} s with a valid API key`,
  );
}

const retryAfterSeconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

function refused(res: ServerResponse, name: string, seconds: number, policy: string | undefined, message: string): Envelope {
  const headers: Record<string, string> = { 'Retry-After': String(seconds), RateLimit: `"${name}";r=0;t=${seconds}` };
  if (policy !== undefined) headers['RateLimit-Policy'] = policy;
  const answer = errorEnvelope(429, 'rate_limited', message);
  for (const [field, value] of Object.entries(headers)) {
    res.setHeader(field, value);
    answer.headers[field] = value;
  }
  return answer;
}
