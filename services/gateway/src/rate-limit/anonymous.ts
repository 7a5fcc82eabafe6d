import { takeFromBucket, type BucketLevel, type RatePolicy } from './limiter';

/**
 * The budget of requests no valid API key covers, per client (client-address.ts: the socket's
 * address, or the one a trusted proxy gives): requests with no key, an unknown or a revoked one, and
 * the routes that need none (/health, /openapi.json, /docs, OPTIONS, 404, 405). Such a request takes
 * a token from its client's bucket before anything else is done for it; past `perSecond` (a second's
 * worth may come at once) its client's anonymous requests are answered 429 until the bucket refills.
 * A request with a valid key never comes here, so a client behind the same proxy as a flood, or the
 * flood's own client with a good key, keeps working. Per replica, not shared: it guards each
 * replica's own work, which is the replica's to spend.
 */
export class AnonymousLimiter {
  private readonly buckets = new Map<string, BucketLevel>();
  /** The bucket's terms, as the 429's RateLimit-Policy states them. */
  readonly policy: RatePolicy;

  constructor(
    perSecond: number,
    /** Most addresses remembered; past it the ones whose buckets have refilled are forgotten first. */
    private readonly maxAddresses = 10_000,
    private readonly now: () => number = Date.now,
  ) {
    const burst = Math.max(1, Math.ceil(perSecond));
    this.policy = { perSecond, burst, lease: burst };
  }

  /** Takes a request for the client and answers 0, or answers the ms until it may make one. */
  take(address: string): number {
    const now = this.now();
    if (!this.buckets.has(address) && this.buckets.size >= this.maxAddresses) this.forgetRefilled(now);
    const { granted, bucket } = takeFromBucket(this.buckets.get(address), now, 1, this.policy);
    this.buckets.set(address, bucket);
    if (granted === 1) return 0;
    // Less a nanosecond: the float sum of a refill must not round a whole ms up to the next.
    return Math.max(1, Math.ceil(((1 - bucket.tokens) / this.policy.perSecond) * 1000 - 1e-6));
  }

  /** Gives back the token of a request that turned out to have a valid key. */
  giveBack(address: string): void {
    const bucket = this.buckets.get(address);
    if (bucket) bucket.tokens = Math.min(this.policy.burst, bucket.tokens + 1);
  }

  /** Addresses remembered now. */
  size(): number {
    return this.buckets.size;
  }

  private forgetRefilled(now: number): void {
    const fullAfterMs = (this.policy.burst / this.policy.perSecond) * 1000;
    for (const [address, bucket] of this.buckets) if (now - bucket.at >= fullAfterMs) this.buckets.delete(address);
    // A flood from more addresses than remembered: the oldest go, so memory stays bounded.
    for (const address of this.buckets.keys()) {
      if (this.buckets.size < this.maxAddresses) break;
      this.buckets.delete(address);
    }
  }
}
