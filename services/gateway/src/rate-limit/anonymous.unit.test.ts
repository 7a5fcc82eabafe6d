import { AnonymousLimiter } from './anonymous';

describe('AnonymousLimiter', () => {
  let now = 0;
  const clock = () => now;
  beforeEach(() => (now = 1_000_000));

  it("lets a client make a second's worth of anonymous requests at once, then refuses it until one has refilled", () => {
    const limiter = new AnonymousLimiter(5, 100, clock);
    for (let i = 0; i < 5; i++) expect(limiter.take('10.0.0.1')).toBe(0);
    expect(limiter.take('10.0.0.1')).toBe(200);
    expect(limiter.take('10.0.0.2')).toBe(0);
    now += 199;
    expect(limiter.take('10.0.0.1')).toBe(1);
    now += 1;
    expect(limiter.take('10.0.0.1')).toBe(0);
    expect(limiter.take('10.0.0.1')).toBe(200);
  });

  it('spends nothing on requests whose key turned out valid', () => {
    const limiter = new AnonymousLimiter(2, 100, clock);
    for (let i = 0; i < 50; i++) {
      expect(limiter.take('10.0.0.1')).toBe(0);
      limiter.giveBack('10.0.0.1');
    }
    expect(limiter.take('10.0.0.1')).toBe(0);
    expect(limiter.take('10.0.0.1')).toBe(0);
    expect(limiter.take('10.0.0.1')).toBeGreaterThan(0);
  });

  it('remembers a bounded number of addresses, forgetting refilled ones first, then the oldest', () => {
    const limiter = new AnonymousLimiter(1, 3, clock);
    limiter.take('a');
    now += 500;
    limiter.take('b');
    limiter.take('c');
    now += 600; // a has refilled (1 s), b and c have not
    limiter.take('d');
    expect(limiter.size()).toBe(3);
    expect(limiter.take('b')).toBeGreaterThan(0);
    for (let i = 0; i < 100; i++) limiter.take(`flood-${i}`);
    expect(limiter.size()).toBe(3);
  });
});
