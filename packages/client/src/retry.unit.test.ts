import { defaultRetryPolicy, isRetryable, retryAfterMs, retryDelay, type AttemptOutcome } from './retry';

const answer = (status: number, code?: string): AttemptOutcome => ({ kind: 'answer', status, code });

describe('which outcomes are retried', () => {
  it.each([
    [answer(504, 'outcome_unknown'), true, true],
    [answer(503, 'outcome_unknown'), true, true],
    [answer(503, 'service_unavailable'), true, true],
    [answer(504, 'timeout'), true, true],
    [answer(409, 'idempotency_conflict'), true, false],
    [answer(429, 'rate_limited'), true, true],
    [answer(429), false, false],
    [{ kind: 'network' } as const, true, true],
    [answer(502), true, true],
    [answer(503), true, true],
    [answer(400, 'validation_failed'), false, false],
    [answer(422, 'idempotency_key_reused'), false, false],
    [answer(400, 'invalid_state'), false, false],
    [answer(401, 'unauthorized'), false, false],
    [answer(404, 'not_found'), false, false],
    [answer(413, 'payload_too_large'), false, false],
    [answer(500, 'internal_error'), false, false],
    [answer(502, 'internal_error'), false, false],
    [answer(503, 'internal_error'), false, false],
  ])('%j: write %s, read %s', (outcome, write, read) => {
    expect([isRetryable(outcome, true), isRetryable(outcome, false)]).toEqual([write, read]);
  });
});

describe('back-off', () => {
  const policy = { ...defaultRetryPolicy, baseDelayMs: 100, maxDelayMs: 1000 };

  it('doubles from the base delay and stops at the cap', () => {
    const plain = { ...policy, jitter: false };
    expect([2, 3, 4, 5, 6, 7].map((attempt) => retryDelay(plain, attempt))).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it('with jitter waits between half the delay and the delay', () => {
    expect([0, 0.5, 1].map((r) => retryDelay(policy, 4, () => r))).toEqual([200, 300, 400]);
  });

  it('never waits less than the answer’s Retry-After', () => {
    expect(retryDelay({ ...policy, jitter: false }, 2, Math.random, 3000)).toBe(3000);
    expect(retryDelay({ ...policy, jitter: false }, 5, Math.random, 10)).toBe(800);
  });
});

describe('Retry-After', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it.each([
    ['1', 1000],
    [' 30 ', 30_000],
    ['0', 0],
    ['Thu, 01 Jan 2026 00:00:05 GMT', 5000],
    ['Wed, 31 Dec 2025 23:59:00 GMT', 0],
    [null, undefined],
    ['', undefined],
    ['-1', undefined],
    ['1.5', undefined],
    ['soon', undefined],
  ])('%j waits %j ms', (value, ms) => {
    expect(retryAfterMs(value, now)).toBe(ms);
  });
});
