/**
 * Per-organization rate limits, shared by every gateway replica without a database round trip per
 * request.
 *
 * Each organization has one token bucket per kind of request (reads, writes) in PostgreSQL: it holds
 * at most `burst` tokens and refills at `perSecond`. A replica does not take tokens one by one: it
 * leases up to `lease` of them at once (one statement, bucket-store.ts) and spends them locally; when
 * its lease runs down to half, it tops it up in the background, so a request only waits for the
 * database when its replica has nothing left (the first request of an organization, or a flood that
 * emptied the bucket). Tokens are taken from the shared bucket before they are spent, and a replica
 * never holds more than one lease, so over any T seconds the replicas together admit at most
 * `burst + perSecond × T + replicas × lease` requests of one kind (admissionBound). The price is the
 * other way round: tokens a replica holds and does not spend are not available to the others.
 *
 * Besides the rate, each replica caps the requests of one organization it has in flight to the
 * services, so a flood of slow requests cannot fill the services' RPC queues ahead of everyone else's.
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
  /** Most requests of one organization this replica has in flight; undefined: no cap. */
  inFlight?: number;
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

/** Most requests of one kind `replicas` replicas admit together over `seconds` (docs/api.md). */
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
  /** Requests waiting for the top-up under way: it asks for them too. */
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
   * Whether a request of `orgId` may go on. An admitted request holds one of the organization's
   * in-flight places until release(orgId).
   */
  async admit(orgId: number, kind: RequestKind): Promise<Admission> {
    const cap = this.options.inFlight;
    if (cap !== undefined) {
      const running = this.inFlight.get(orgId) ?? 0;
      // A request refused for its concurrency costs no token: it was not served.
      if (running >= cap) return { admitted: false, policy: 'in-flight', retryAfterMs: 1000 };
      // The place is held while the request waits for its token, so waiters cannot overshoot the cap together.
      this.inFlight.set(orgId, running + 1);
    }
    const policy = this.options[kind];
    if (!policy) return ADMITTED;
    const decision = await this.takeToken(orgId, kind, policy);
    if (decision !== ADMITTED) this.release(orgId);
    return decision;
  }

  /** Gives back the in-flight place of an admitted request. */
  release(orgId: number): void {
    if (this.options.inFlight === undefined) return;
    const running = (this.inFlight.get(orgId) ?? 0) - 1;
    if (running > 0) this.inFlight.set(orgId, running);
    else this.inFlight.delete(orgId);
  }

  /** Requests of `orgId` in flight on this replica. */
  inFlightOf(orgId: number): number {
    return this.inFlight.get(orgId) ?? 0;
  }

  private async takeToken(orgId: number, kind: RequestKind, policy: RatePolicy): Promise<Admission> {
    const leases = this.leases[kind];
    let lease = leases.get(orgId);
    if (!lease) {
      lease = { tokens: 0, refusedUntil: 0, waiting: 0 };
      leases.set(orgId, lease);
    }
    // Nothing left here: the request waits for the shared bucket, one statement for all who wait. Each
    // round either leaves tokens that someone takes, or finds the bucket short for a while and refuses.
    while (lease.tokens <= 0) {
      if (!lease.fetching && lease.refusedUntil > this.now()) return this.refusal(kind, lease, policy);
      lease.waiting++;
      try {
        await (lease.fetching ?? this.topUp(orgId, kind, lease, policy));
      } finally {
        lease.waiting--;
      }
    }
    lease.tokens--;
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
