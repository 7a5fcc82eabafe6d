import { takeFromBucket, type BucketLevel, type RatePolicy } from './limiter';

/**
 * Lookups of keys the replica has not proven, limited per client address. A key the gateway does not
 * know costs a database lookup, and a flood of made-up keys would make one per request: each lookup
 * takes a token from its address's bucket before it starts (so a burst sent at once is limited at
 * once), and a key that proves valid gives its token back, so only failures spend the rate. Past
 * `perSecond` (a second's worth may come at once), the address's unproven keys are refused unread
 * until its bucket refills. Keys the replica knows (ApiKeyStore's cache) never come here, nor do
 * requests that join a lookup of their key already under way (a client opening many connections at
 * once with a key not seen yet spends one), so a client sharing an address (a NAT, a proxy) with a
 * flood keeps working. Per replica, not shared: it guards
 * each replica's own database work, which is the replica's to spend.
 */
export class UnprovenKeyLimiter {
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

  /** Takes a lookup for the address and answers 0, or answers the ms until it may have one. */
  take(address: string): number {
    const now = this.now();
    if (!this.buckets.has(address) && this.buckets.size >= this.maxAddresses) this.forgetRefilled(now);
    const { granted, bucket } = takeFromBucket(this.buckets.get(address), now, 1, this.policy);
    this.buckets.set(address, bucket);
    if (granted === 1) return 0;
    // Less a nanosecond: the float sum of a refill must not round a whole ms up to the next.
    return Math.max(1, Math.ceil(((1 - bucket.tokens) / this.policy.perSecond) * 1000 - 1e-6));
  }

  /** Gives back the lookup of a key that proved valid. */
  proven(address: string): void {
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
