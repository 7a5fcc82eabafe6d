import type { ServerResponse } from 'node:http';
import { normalizePath, operationCost, resolveCandidates, type Envelope, type Operation } from '@bo/contracts';
import type { GatewayConfig } from '../config';
import type { AnonymousLimiter } from '../rate-limit/anonymous';
import { PgBucketStore } from '../rate-limit/bucket-store';
import { RateLimiter, ratePolicy, type Admission, type RatePolicy, type RequestKind } from '../rate-limit/limiter';
import type { GatewayDeps } from './deps';
import type { Observed } from './observe';
import { errorEnvelope } from './reply';

export type RateLimitConfig = Pick<
  GatewayConfig,
  'RATE_LIMIT_READS_PER_SECOND' | 'RATE_LIMIT_WRITES_PER_SECOND' | 'RATE_LIMIT_IN_FLIGHT' | 'RATE_LIMIT_LEASE_MS'
>;

/**
 * The limits of the operations (operations.ts), in cost (Operation.cost), in two steps around the
 * body: who may go on, and the 429 of who may not. An admitted request holds its cost in flight
 * until release(locals).
 */
export interface RateLimits {
  /**
   * Before the body is read, with only the key's organization and the path known: the cheapest cost
   * of the path's operations in flight, and a refusal when every kind of request the path may be has
   * nothing left in this replica's lease of the shared bucket. Undefined when the request may go on;
   * otherwise the 429 to answer, its headers set on `res`.
   */
  admitPath(res: ServerResponse, locals: Observed, orgId: number, path: string): Envelope | undefined;
  /**
   * Once the body was read: the whole cost of the operation it names in flight and in tokens of its
   * kind; for a body that names none (an unknown action), the cost of the path's cheapest.
   */
  admitOperation(res: ServerResponse, locals: Observed, op: Operation | undefined): Promise<Envelope | undefined>;
  /** Gives back what an admitted request held (nothing for one that was not admitted). */
  release(locals: Observed): void;
}

/**
 * The shared bucket is waited for this long at most (a first lease may open a connection on a busy
 * machine); past it the replica limits alone for STORE_RETRY_MS.
 */
const STORE_WAIT_MS = 2000;
const STORE_RETRY_MS = 5000;

/** What the operations of a path may cost, and be, before the body says which one it is. */
interface PathTerms {
  cheapest: Operation;
  kinds: RequestKind[];
}

const kindOf = (op: Pick<Operation, 'write'>): RequestKind => (op.write ? 'writes' : 'reads');

export function createRateLimits(deps: Pick<GatewayDeps, 'db' | 'log' | 'replicas'> & { config: RateLimitConfig }): RateLimits {
  const { config, log, replicas } = deps;
  const policies = {
    reads: ratePolicy(config.RATE_LIMIT_READS_PER_SECOND, config.RATE_LIMIT_LEASE_MS),
    writes: ratePolicy(config.RATE_LIMIT_WRITES_PER_SECOND, config.RATE_LIMIT_LEASE_MS),
  };
  const cap = config.RATE_LIMIT_IN_FLIGHT > 0 ? config.RATE_LIMIT_IN_FLIGHT : undefined;
  const limiter = new RateLimiter(
    new PgBucketStore(deps.db),
    {
      ...policies,
      inFlight: cap === undefined ? undefined : () => (replicas ? replicas.share(cap) : cap),
      storeWaitMs: STORE_WAIT_MS,
      storeRetryMs: STORE_RETRY_MS,
    },
    (err) =>
      log.warn(
        { err: (err as Error).message },
        `rate limits: the shared bucket is unavailable; this replica limits alone for ${STORE_RETRY_MS} ms`,
      ),
  );
  const terms = new Map<string, PathTerms>();
  const termsOf = (raw: string): PathTerms => {
    // By the path as the catalogue knows it: however many trailing slashes a client adds, one entry.
    const path = normalizePath(raw);
    let known = terms.get(path);
    if (!known) {
      const ops = resolveCandidates(path);
      const cheapest = ops.reduce((a, b) => (operationCost(b) < operationCost(a) ? b : a));
      known = { cheapest, kinds: [...new Set(ops.map(kindOf))] };
      terms.set(path, known);
    }
    return known;
  };
  const holding = new WeakMap<Observed, { orgId: number; units: number; cheapest: Operation }>();
  const refused = (res: ServerResponse, admission: Admission) =>
    rateLimited(res, admission as Extract<Admission, { admitted: false }>, policies, cap);
  return {
    admitPath(res, locals, orgId, path) {
      const { cheapest, kinds } = termsOf(path);
      const spent = limiter.exhausted(orgId, kinds);
      if (!spent.admitted) return refused(res, spent);
      const units = operationCost(cheapest);
      const entered = limiter.enter(orgId, units);
      if (!entered.admitted) return refused(res, entered);
      holding.set(locals, { orgId, units, cheapest });
      return undefined;
    },
    async admitOperation(res, locals, named) {
      const held = holding.get(locals);
      if (!held) throw new Error('admitOperation before admitPath');
      const op = named ?? held.cheapest;
      const cost = operationCost(op);
      const grown = limiter.grow(held.orgId, held.units, cost - held.units);
      if (!grown.admitted) return refused(res, grown);
      held.units = Math.max(held.units, cost);
      const spent = await limiter.spend(held.orgId, kindOf(op), cost);
      return spent.admitted ? undefined : refused(res, spent);
    },
    release(locals) {
      const held = holding.get(locals);
      if (held === undefined) return;
      holding.delete(locals);
      limiter.release(held.orgId, held.units);
    },
  };
}

/** A policy as the `RateLimit-Policy` field states it (IETF draft-ietf-httpapi-ratelimit-headers); its quota counts cost. */
export function policyField(name: RequestKind | 'in-flight' | 'anonymous', policy: RatePolicy | number): string {
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
      ? `This organization already has requests costing ${inFlight} in flight, the most allowed at once over every gateway (a read costs 1, a write 2, a report or a render 10); retry after ${seconds} s`
      : `This organization is over its rate limit for ${name}, a cost of ${policies[name]?.perSecond} a second (a read costs 1, a write 2, a report or a render 10); retry after ${seconds} s`;
  return refused(res, name, seconds, policy === undefined ? undefined : policyField(name, policy), message);
}

/** The 429 of a request no valid key covers from a client over its budget of those (AnonymousLimiter). */
export function anonymousLimited(res: ServerResponse, waitMs: number, limiter: AnonymousLimiter): Envelope {
  const seconds = retryAfterSeconds(waitMs);
  return refused(
    res,
    'anonymous',
    seconds,
    policyField('anonymous', limiter.policy),
    `Too many requests from this client without a valid API key (at most ${limiter.policy.perSecond} a second); retry after ${seconds} s`,
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
