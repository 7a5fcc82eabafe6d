import fc from 'fast-check';
import {
  admissionBound,
  RateLimiter,
  ratePolicy,
  takeFromBucket,
  type BucketLevel,
  type BucketStore,
  type RatePolicy,
  type RequestKind,
} from './limiter';

/** A clock the test moves. */
function fakeClock(start = 1_000_000) {
  let now = start;
  return { now: () => now, set: (t: number) => (now = t), advance: (ms: number) => (now += ms) };
}

/** The shared bucket in memory, with the arithmetic the PostgreSQL statement mirrors; counts its statements. */
function memoryStore(now: () => number) {
  const buckets = new Map<string, BucketLevel>();
  let statements = 0;
  let failing = false;
  const store: BucketStore = {
    take(orgId, kind, want, policy) {
      statements++;
      if (failing) return Promise.reject(new Error('database unavailable'));
      const key = `${orgId}:${kind}`;
      const { granted, bucket } = takeFromBucket(buckets.get(key), now(), want, policy);
      buckets.set(key, bucket);
      return Promise.resolve({ granted, left: bucket.tokens });
    },
  };
  return {
    store,
    statements: () => statements,
    fail: (value: boolean) => (failing = value),
  };
}

const limiterOn = (store: BucketStore, clock: { now: () => number }, options: Partial<ConstructorParameters<typeof RateLimiter>[1]> = {}) =>
  new RateLimiter(store, { storeWaitMs: 1000, storeRetryMs: 5000, ...options }, () => undefined, clock.now);

describe('the token bucket', () => {
  it('grants whole tokens up to what it holds and what was asked, refills by elapsed time, never above the burst', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1000 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 1, max: 1000 })), { minLength: 1, maxLength: 50 }),
        (perSecond, steps) => {
          const policy = ratePolicy(perSecond, 100) as RatePolicy;
          let bucket: BucketLevel | undefined;
          let now = 0;
          let granted = 0;
          for (const [gap, want] of steps) {
            now += gap;
            const before = bucket ? Math.min(policy.burst, bucket.tokens + (perSecond * (now - bucket.at)) / 1000) : policy.burst;
            const taken = takeFromBucket(bucket, now, Math.min(want, policy.burst), policy);
            expect(taken.granted).toBeLessThanOrEqual(Math.min(want, Math.floor(before)));
            expect(taken.bucket.tokens).toBeGreaterThanOrEqual(0);
            expect(taken.bucket.tokens).toBeLessThanOrEqual(policy.burst);
            bucket = taken.bucket;
            granted += taken.granted;
          }
          // Over the whole run the bucket gave at most what it started with and what it earned.
          expect(granted).toBeLessThanOrEqual(policy.burst + (perSecond * now) / 1000);
        },
      ),
    );
  });

  it('refills nothing for time a later taker already counted (a statement that waited for the row lock)', () => {
    const policy = ratePolicy(10, 100) as RatePolicy;
    const later = { tokens: 0, at: 2000 };
    expect(takeFromBucket(later, 1500, 5, policy)).toEqual({ granted: 0, bucket: { tokens: 0, at: 2000 } });
  });

  it('states a rate as a second of burst and a lease of a lease window, at least one token each', () => {
    expect(ratePolicy(100, 100)).toEqual({ perSecond: 100, burst: 100, lease: 10 });
    expect(ratePolicy(0.5, 100)).toEqual({ perSecond: 0.5, burst: 1, lease: 1 });
    expect(ratePolicy(1_000_000, 100)).toEqual({ perSecond: 1_000_000, burst: 1_000_000, lease: 100_000 });
    expect(ratePolicy(0, 100)).toBeUndefined();
  });
});

describe('the limiter', () => {
  const admitted = async (limiter: RateLimiter, n: number, kind: RequestKind = 'reads', org = 1) => {
    const answers = await Promise.all(Array.from({ length: n }, () => limiter.admit(org, kind)));
    for (const a of answers) if (a.admitted) limiter.release(org);
    return answers.filter((a) => a.admitted).length;
  };

  it('admits a burst up to the bucket, then refuses with the wait until a lease is there again', async () => {
    const clock = fakeClock();
    const mem = memoryStore(clock.now);
    const limiter = limiterOn(mem.store, clock, { reads: ratePolicy(20, 100) });
    expect(await admitted(limiter, 20)).toBe(20);
    const refused = await limiter.admit(1, 'reads');
    expect(refused).toEqual({ admitted: false, policy: 'reads', retryAfterMs: expect.any(Number) });
    expect(refused.admitted === false && refused.retryAfterMs).toBeGreaterThan(0);
    // Another organization and the other kind have buckets of their own.
    expect(await admitted(limiter, 5, 'reads', 2)).toBe(5);
    expect(await admitted(limiter, 5, 'writes')).toBe(5);
    clock.advance(1000);
    expect(await admitted(limiter, 25)).toBe(20);
  });

  it('asks the shared bucket once per lease, not once per request', async () => {
    const clock = fakeClock();
    const mem = memoryStore(clock.now);
    const limiter = limiterOn(mem.store, clock, { reads: ratePolicy(1000, 100) });
    for (let i = 0; i < 500; i++) {
      clock.advance(2);
      expect((await limiter.admit(1, 'reads')).admitted).toBe(true);
    }
    // 500 requests at 500/s under a 1000/s limit with leases of 100: a handful of statements.
    expect(mem.statements()).toBeLessThanOrEqual(12);
  });

  it('under a flood asks the empty shared bucket once per lease window, not once per request', async () => {
    const clock = fakeClock();
    const mem = memoryStore(clock.now);
    const limiter = limiterOn(mem.store, clock, { reads: ratePolicy(100, 100) });
    await admitted(limiter, 100);
    const before = mem.statements();
    for (let i = 0; i < 1000; i++) {
      clock.advance(1);
      await limiter.admit(1, 'reads');
    }
    // One second of flood at 1000/s against 100/s with leases of 10: about ten statements.
    expect(mem.statements() - before).toBeLessThanOrEqual(25);
  });

  it('never lets N replicas together admit more than burst + rate × T + N × lease in any window', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 10, max: 500 }),
        // Mostly close arrivals, and pauses long enough for the bucket to fill again while replicas hold leases.
        fc.array(
          fc.tuple(fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 3000 })), fc.nat(), fc.integer({ min: 1, max: 8 })),
          {
            minLength: 1,
            maxLength: 120,
          },
        ),
        async (replicas, perSecond, leaseMs, arrivals) => {
          const clock = fakeClock();
          const mem = memoryStore(clock.now);
          const policy = ratePolicy(perSecond, leaseMs) as RatePolicy;
          const limiters = Array.from({ length: replicas }, () => limiterOn(mem.store, clock, { reads: policy }));
          const times: number[] = [];
          for (const [gap, replica, batch] of arrivals) {
            clock.advance(gap);
            const limiter = limiters[replica % replicas] as RateLimiter;
            const answers = await Promise.all(Array.from({ length: batch }, () => limiter.admit(1, 'reads')));
            for (const a of answers) if (a.admitted) times.push(clock.now());
          }
          let worst = { over: -Infinity, window: '' };
          for (let i = 0; i < times.length; i++) {
            for (let j = i; j < times.length; j++) {
              const seconds = ((times[j] as number) - (times[i] as number)) / 1000;
              const over = j - i + 1 - admissionBound(policy, seconds, replicas);
              if (over > worst.over) worst = { over, window: `${j - i + 1} admitted in ${seconds} s` };
            }
          }
          expect(worst.over <= 0 ? 'within' : worst.window).toBe('within');
        },
      ),
      { numRuns: 200 },
    );
  });

  it('never refuses a client that keeps below its rate', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 5, max: 300 }), fc.integer({ min: 10, max: 500 }), async (perSecond, leaseMs) => {
        const clock = fakeClock();
        const mem = memoryStore(clock.now);
        const limiter = limiterOn(mem.store, clock, { reads: ratePolicy(perSecond, leaseMs) });
        const gap = Math.ceil(1000 / (perSecond * 0.9));
        let refused = 0;
        for (let i = 0; i < 2 * perSecond; i++) {
          clock.advance(gap);
          if (!(await limiter.admit(1, 'reads')).admitted) refused++;
        }
        expect(refused).toBe(0);
      }),
      { numRuns: 50 },
    );
  });

  it('caps the requests one organization has in flight, and a request refused for it takes no token', async () => {
    const clock = fakeClock();
    const mem = memoryStore(clock.now);
    const limiter = limiterOn(mem.store, clock, { reads: ratePolicy(3, 100), inFlight: () => 2 });
    expect(await limiter.admit(1, 'reads')).toEqual({ admitted: true });
    expect(await limiter.admit(1, 'reads')).toEqual({ admitted: true });
    expect(await limiter.admit(1, 'reads')).toEqual({ admitted: false, policy: 'in-flight', retryAfterMs: 1000 });
    expect(await limiter.admit(2, 'reads')).toEqual({ admitted: true });
    expect(limiter.inFlightOf(1)).toBe(2);
    limiter.release(1);
    // The refused request took no token: the third of the burst of 3 is still there.
    expect(await limiter.admit(1, 'reads')).toEqual({ admitted: true });
    limiter.release(1);
    limiter.release(1);
    expect(limiter.inFlightOf(1)).toBe(0);
    // A request refused for its rate gives its place back.
    expect((await limiter.admit(1, 'reads')).admitted).toBe(false);
    expect(limiter.inFlightOf(1)).toBe(0);
  });

  it('holds the in-flight places of requests waiting for a lease, so they cannot overshoot the cap together', async () => {
    const clock = fakeClock();
    const mem = memoryStore(clock.now);
    const limiter = limiterOn(mem.store, clock, { reads: ratePolicy(100, 100), inFlight: () => 4 });
    const answers = await Promise.all(Array.from({ length: 10 }, () => limiter.admit(1, 'reads')));
    expect(answers.filter((a) => a.admitted)).toHaveLength(4);
    expect(limiter.inFlightOf(1)).toBe(4);
  });

  it("spends a request's cost in tokens: a second's worth of 10-cost reports is a tenth of the lists", async () => {
    const clock = fakeClock();
    const mem = memoryStore(clock.now);
    const limiter = limiterOn(mem.store, clock, { reads: ratePolicy(100, 100) });
    let reports = 0;
    while ((await limiter.admit(1, 'reads', 10)).admitted) reports++;
    expect(reports).toBe(10);
    // A cost above the burst is clamped to it: one such request a second still runs.
    const tiny = limiterOn(memoryStore(clock.now).store, clock, { reads: ratePolicy(4, 100) });
    expect(await tiny.admit(1, 'reads', 10)).toEqual({ admitted: true });
    expect((await tiny.admit(1, 'reads', 1)).admitted).toBe(false);
  });

  it('caps the cost in flight, not the count, and lets a request costlier than the cap run alone', async () => {
    const clock = fakeClock();
    const limiter = limiterOn(memoryStore(clock.now).store, clock, { inFlight: () => 8 });
    expect(limiter.enter(1, 10)).toEqual({ admitted: true });
    expect(limiter.enter(1, 1)).toEqual({ admitted: false, policy: 'in-flight', retryAfterMs: 1000 });
    limiter.release(1, 10);
    // Six lists, then a write's worth more for one of them once its body named it.
    for (let i = 0; i < 6; i++) expect(limiter.enter(1, 1).admitted).toBe(true);
    expect(limiter.grow(1, 1, 1)).toEqual({ admitted: true });
    expect(limiter.grow(1, 1, 9)).toEqual({ admitted: false, policy: 'in-flight', retryAfterMs: 1000 });
    expect(limiter.inFlightOf(1)).toBe(7);
    // Alone, a request grows to any cost.
    const alone = limiterOn(memoryStore(clock.now).store, clock, { inFlight: () => 8 });
    expect(alone.enter(1, 1).admitted).toBe(true);
    expect(alone.grow(1, 1, 9).admitted).toBe(true);
    // The share may change between requests (replicas join or leave): each request meets the cap of its time.
    let share = 8;
    const moving = limiterOn(memoryStore(clock.now).store, clock, { inFlight: () => share });
    for (let i = 0; i < 4; i++) expect(moving.enter(1, 1).admitted).toBe(true);
    share = 4;
    expect(moving.enter(1, 1).admitted).toBe(false);
  });

  it('refuses a request of unknown kind unasked only when every kind it may be has nothing to give now', async () => {
    const clock = fakeClock();
    const mem = memoryStore(clock.now);
    const limiter = limiterOn(mem.store, clock, { reads: ratePolicy(10, 100), writes: ratePolicy(10, 100) });
    // Nothing known yet: not refused.
    expect(limiter.exhausted(1, ['reads', 'writes'])).toEqual({ admitted: true });
    while ((await limiter.admit(1, 'reads')).admitted);
    const statements = mem.statements();
    expect(limiter.exhausted(1, ['reads'])).toEqual({ admitted: false, policy: 'reads', retryAfterMs: expect.any(Number) });
    // The writes may still be served: a path that may lead to either is not refused.
    expect(limiter.exhausted(1, ['reads', 'writes'])).toEqual({ admitted: true });
    expect(mem.statements()).toBe(statements);
    clock.advance(1000);
    expect(limiter.exhausted(1, ['reads'])).toEqual({ admitted: true });
  });

  it('limits alone at the policy rate while the shared bucket fails, and uses it again after the retry time', async () => {
    const clock = fakeClock();
    const mem = memoryStore(clock.now);
    const errors: unknown[] = [];
    const limiter = new RateLimiter(
      mem.store,
      { reads: ratePolicy(20, 100), storeWaitMs: 1000, storeRetryMs: 5000 },
      (e) => errors.push(e),
      clock.now,
    );
    mem.fail(true);
    expect(await admitted(limiter, 30)).toBe(20);
    expect(errors).toHaveLength(1);
    const statements = mem.statements();
    clock.advance(1000);
    expect(await admitted(limiter, 30)).toBe(20);
    expect(mem.statements()).toBe(statements);
    mem.fail(false);
    clock.advance(5000);
    expect(await admitted(limiter, 30)).toBe(20);
    expect(mem.statements()).toBeGreaterThan(statements);
  });

  it('does not keep a request waiting on a shared bucket that does not answer', async () => {
    const clock = fakeClock();
    const hanging: BucketStore = { take: () => new Promise(() => undefined) };
    const limiter = new RateLimiter(
      hanging,
      { reads: ratePolicy(20, 100), storeWaitMs: 20, storeRetryMs: 5000 },
      () => undefined,
      clock.now,
    );
    expect(await limiter.admit(1, 'reads')).toEqual({ admitted: true });
  });
});
