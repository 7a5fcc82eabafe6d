/**
 * Per-organization rate limits, shared by every gateway replica without a database round trip per
 * request, counted in cost (Operation.cost: a read 1, a write 2, a report or a render 10).
 *
 * Each organization has one token bucket per kind of request (reads, writes) in PostgreSQL: it holds
 * at most `burst` tokens and refills at `perSecond`; a request spends its cost in tokens. A replica
 * does not take tokens one by one: it leases up to `lease` of them at once (one statement,
 * bucket-store.ts) and spends them locally; when its lease runs down to half, it tops it up in the
 * background, so a request only waits for the database when its replica has too few left (the first
 * request of an organization, or a flood that emptied the bucket). Tokens are taken from the shared
 * bucket before they are spent, and a replica never holds more than one lease, so over any T seconds
 * the replicas together admit at most `burst + perSecond × T + replicas × lease` tokens' worth of one
 * kind (admissionBound). The price is the other way round: tokens a replica holds and does not spend
 * are not available to the others.
 *
 * Besides the rate, each replica caps the cost of one organization's requests it has in flight to
 * its share of the organization's cap (the cap divided among the live replicas, replicas.ts), so a
 * flood of slow or heavy requests cannot fill the services' RPC queues ahead of everyone else's.
 */

export type RequestKind = 'reads' | 'writes';

export interface RatePolicy {
  /** Tokens added per second. */
  perSecond: number;
  /** Most tokens the bucket holds: the largest burst. */
  burst: number;
  /** Most tokens a replica takes from the shared bucket at once, and holds. */
  lease: number;
}

/** What a replica asks the shared bucket for, and what it is given. */
export interface BucketStore {
  /** Takes up to `want` tokens (want ≤ burst); answers how many it got and the tokens left behind. */
  take(orgId: number, kind: RequestKind, want: number, policy: RatePolicy): Promise<{ granted: number; left: number }>;
}

export interface LimiterOptions {
  /** Undefined: that kind of request is not limited. */
  reads?: RatePolicy;
  writes?: RatePolicy;
  /** The most cost of one organization this replica has in flight now (its share of the cap); undefined: no cap. */
  inFlight?: () => number;
  /** Longest a request waits for the shared bucket; past it the replica limits alone for a while. */
  storeWaitMs: number;
  /** How long a replica that could not use the shared bucket limits alone before asking it again. */
  storeRetryMs: number;
}

export type Admission =
  | { admitted: true }
  | {
      admitted: false;
      /** The policy that refused: a kind, or `in-flight`. */
      policy: RequestKind | 'in-flight';
      /** How long to wait before asking again, in ms. */
      retryAfterMs: number;
    };

const ADMITTED: Admission = Object.freeze({ admitted: true });
const IN_FLIGHT_REFUSAL: Admission = Object.freeze({ admitted: false, policy: 'in-flight', retryAfterMs: 1000 });

/** A token bucket's level at a time (ms). */
export interface BucketLevel {
  tokens: number;
  at: number;
}

/**
 * Takes up to `want` whole tokens from a bucket at time `now`: the bucket first refills by the time
 * elapsed (never above the burst, never backwards), then gives what it holds. The shared bucket's
 * statement (bucket-store.ts) computes the same in PostgreSQL.
 */
export function takeFromBucket(
  bucket: BucketLevel | undefined,
  now: number,
  want: number,
  policy: RatePolicy,
): { granted: number; bucket: BucketLevel } {
  const elapsed = bucket ? Math.max(0, now - bucket.at) : 0;
  const level = bucket ? Math.min(policy.burst, bucket.tokens + (policy.perSecond * elapsed) / 1000) : policy.burst;
  const granted = Math.max(0, Math.min(want, Math.floor(level)));
  return { granted, bucket: { tokens: level - granted, at: bucket ? Math.max(bucket.at, now) : now } };
}

/** The policy of a rate in requests per second, with its lease for a lease window of `leaseMs`. */
export function ratePolicy(perSecond: number, leaseMs: number): RatePolicy | undefined {
  if (perSecond <= 0) return undefined;
  const burst = Math.max(1, Math.ceil(perSecond));
  return { perSecond, burst, lease: Math.min(burst, Math.max(1, Math.ceil((perSecond * leaseMs) / 1000))) };
}

/** Most tokens (cost) of one kind `replicas` replicas admit together over `seconds` (docs/api.md). */
export function admissionBound(policy: RatePolicy, seconds: number, replicas: number): number {
  return policy.burst + policy.perSecond * seconds + replicas * policy.lease;
}

/** The wait until a bucket that holds `left` tokens holds `wanted` again, in ms. */
export function refillWaitMs(policy: RatePolicy, left: number, wanted: number): number {
  return Math.max(0, Math.ceil(((wanted - left) / policy.perSecond) * 1000));
}

/** A replica's share of one organization's bucket. */
interface Lease {
  tokens: number;
  /** No token will be granted before this time (the shared bucket was empty). */
  refusedUntil: number;
  fetching?: Promise<void>;
  /** Tokens the requests waiting for the top-up under way need: it asks for them too. */
  waiting: number;
  /** The bucket this replica keeps alone while the shared one cannot be used. */
  alone?: BucketLevel;
}

export class RateLimiter {
  private readonly leases: Record<RequestKind, Map<number, Lease>> = { reads: new Map(), writes: new Map() };
  private readonly inFlight = new Map<number, number>();
  /** Until then the shared bucket is not asked: it failed or was too slow. */
  private aloneUntil = 0;

  constructor(
    private readonly store: BucketStore,
    private readonly options: LimiterOptions,
    private readonly onStoreError: (err: unknown) => void = () => undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Whether a request of `orgId` costing `cost` may go on: its place in flight (enter) and its
   * tokens (spend). An admitted request holds `cost` in flight until release(orgId, cost).
   */
  async admit(orgId: number, kind: RequestKind, cost = 1): Promise<Admission> {
    const entered = this.enter(orgId, cost);
    if (!entered.admitted) return entered;
    const decision = await this.spend(orgId, kind, cost);
    if (!decision.admitted) this.release(orgId, cost);
    return decision;
  }

  /**
   * Holds `units` of the organization's cost in flight, unless that would take it past this
   * replica's share of the cap; a request alone always fits, however much it costs. A request
   * refused for its concurrency costs no token: it was not served.
   */
  enter(orgId: number, units: number): Admission {
    const cap = this.options.inFlight?.();
    if (cap === undefined) return ADMITTED;
    const running = this.inFlight.get(orgId) ?? 0;
    if (running > 0 && running + units > cap) return IN_FLIGHT_REFUSAL;
    this.inFlight.set(orgId, running + units);
    return ADMITTED;
  }

  /** Holds `more` units for a request that holds `held` already (enter), on the same terms. */
  grow(orgId: number, held: number, more: number): Admission {
    const cap = this.options.inFlight?.();
    if (cap === undefined || more <= 0) return ADMITTED;
    const running = this.inFlight.get(orgId) ?? 0;
    if (running > held && running + more > cap) return IN_FLIGHT_REFUSAL;
    this.inFlight.set(orgId, running + more);
    return ADMITTED;
  }

  /** Gives back what a request held in flight. */
  release(orgId: number, units = 1): void {
    if (this.options.inFlight === undefined) return;
    const running = (this.inFlight.get(orgId) ?? 0) - units;
    if (running > 0) this.inFlight.set(orgId, running);
    else this.inFlight.delete(orgId);
  }

  /** Cost of `orgId` in flight on this replica. */
  inFlightOf(orgId: number): number {
    return this.inFlight.get(orgId) ?? 0;
  }

  /**
   * The refusal of a request whose kind is not known yet (its body is unread) when every kind it may
   * turn out to be has nothing to give now: this replica's lease of it is empty and the shared bucket
   * said when to ask again. Asks nothing; an organization under its rate is never refused here.
   */
  exhausted(orgId: number, kinds: readonly RequestKind[]): Admission {
    let refusal: Admission | undefined;
    for (const kind of kinds) {
      const policy = this.options[kind];
      const lease = this.leases[kind].get(orgId);
      if (!policy || !lease || lease.tokens > 0 || lease.fetching || lease.refusedUntil <= this.now()) return ADMITTED;
      refusal ??= this.refusal(kind, lease, policy);
    }
    return refusal ?? ADMITTED;
  }

  /** Takes `cost` tokens of `kind` for `orgId` (the burst at most: a request costing more than a second's worth still runs). */
  async spend(orgId: number, kind: RequestKind, cost: number): Promise<Admission> {
    const policy = this.options[kind];
    if (!policy) return ADMITTED;
    return this.takeTokens(orgId, kind, policy, Math.min(Math.max(1, cost), policy.burst));
  }

  private async takeTokens(orgId: number, kind: RequestKind, policy: RatePolicy, cost: number): Promise<Admission> {
    const leases = this.leases[kind];
    let lease = leases.get(orgId);
    if (!lease) {
      lease = { tokens: 0, refusedUntil: 0, waiting: 0 };
      leases.set(orgId, lease);
    }
    // Too few left here: the request waits for the shared bucket, one statement for all who wait. Each
    // round either leaves tokens that someone takes, or finds the bucket short for a while and refuses.
    while (lease.tokens < cost) {
      if (!lease.fetching && lease.refusedUntil > this.now()) return this.refusal(kind, lease, policy);
      lease.waiting += cost;
      try {
        await (lease.fetching ?? this.topUp(orgId, kind, lease, policy));
      } finally {
        lease.waiting -= cost;
      }
    }
    lease.tokens -= cost;
    if (lease.tokens <= policy.lease / 2 && !lease.fetching && lease.refusedUntil <= this.now()) {
      void this.topUp(orgId, kind, lease, policy);
    }
    return ADMITTED;
  }

  private refusal(kind: RequestKind, lease: Lease, policy: RatePolicy): Admission {
    return { admitted: false, policy: kind, retryAfterMs: Math.max(lease.refusedUntil - this.now(), 1000 / policy.perSecond) };
  }

  /** Tops the lease up to `policy.lease` tokens, from the shared bucket unless it cannot be used. */
  private topUp(orgId: number, kind: RequestKind, lease: Lease, policy: RatePolicy): Promise<void> {
    // What the requests waiting spend at once, and a lease to hold after them.
    const want = Math.min(policy.burst, policy.lease - Math.max(0, lease.tokens) + lease.waiting);
    if (this.now() < this.aloneUntil) {
      this.grantAlone(lease, want, policy);
      return Promise.resolve();
    }
    lease.fetching = this.askStore(orgId, kind, want, policy).then(
      ({ granted, left }) => {
        lease.alone = undefined;
        lease.tokens += granted;
        // A bucket short of the top-up is asked again once it can give the rest: a flood costs about one statement per lease.
        lease.refusedUntil = granted >= want ? 0 : this.now() + refillWaitMs(policy, left, want - granted);
      },
      (err: unknown) => {
        // Without the shared bucket each replica limits alone, at the policy's rate, until it answers again.
        this.onStoreError(err);
        this.aloneUntil = this.now() + this.options.storeRetryMs;
        this.grantAlone(lease, want, policy);
      },
    );
    void lease.fetching.finally(() => {
      lease.fetching = undefined;
    });
    return lease.fetching;
  }

  private grantAlone(lease: Lease, want: number, policy: RatePolicy): void {
    const now = this.now();
    const { granted, bucket } = takeFromBucket(lease.alone, now, want, policy);
    lease.alone = bucket;
    lease.tokens += granted;
    lease.refusedUntil = granted >= want ? 0 : now + refillWaitMs(policy, bucket.tokens, want - granted);
  }

  /** The shared bucket's answer, or a failure once it took longer than a request should wait. */
  private askStore(orgId: number, kind: RequestKind, want: number, policy: RatePolicy): Promise<{ granted: number; left: number }> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the shared rate-limit bucket did not answer within ${this.options.storeWaitMs} ms`)),
        this.options.storeWaitMs,
      );
      this.store.take(orgId, kind, want, policy).then(
        (answer) => {
          clearTimeout(timer);
          resolve(answer);
        },
        (err: unknown) => {
          clearTimeout(timer);
          reject(err instanceof Error ? err : new Error(String(err)));
        },
      );
    });
  }
}
