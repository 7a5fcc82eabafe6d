import { startRetryingLockTimeouts } from './startup';

const lockTimeout = () => Object.assign(new Error('canceling statement due to lock timeout'), { code: '55P03' });

describe('start-up after a migration lock timeout', () => {
  const warnings: unknown[] = [];
  const log = { warn: (obj: unknown) => void warnings.push(obj) };
  const waits: number[] = [];
  const sleep = async (ms: number) => void waits.push(ms);
  beforeEach(() => {
    warnings.length = 0;
    waits.length = 0;
  });

  it('starts again after each back-off while a migration times out on its lock, until one attempt gets it', async () => {
    const outcomes = [lockTimeout(), lockTimeout(), 'started'];
    const start = async () => {
      const next = outcomes.shift();
      if (next instanceof Error) throw next;
      return next;
    };
    await expect(startRetryingLockTimeouts(start, log as never, [10, 20, 40], sleep)).resolves.toBe('started');
    expect(waits).toEqual([10, 20]);
    expect(warnings).toHaveLength(2);
  });

  it('gives up with a message saying why after the last back-off, keeping the database error as the cause', async () => {
    const error = await startRetryingLockTimeouts(() => Promise.reject(lockTimeout()), log as never, [10, 20], sleep).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/gave up after 3 attempts: a migration could not take the lock of a table in use/);
    expect((error as Error).cause).toMatchObject({ code: '55P03' });
    expect(waits).toEqual([10, 20]);
  });

  it('does not retry any other failure', async () => {
    let calls = 0;
    const start = () => {
      calls++;
      return Promise.reject(Object.assign(new Error('relation does not exist'), { code: '42P01' }));
    };
    await expect(startRetryingLockTimeouts(start, log as never, [10], sleep)).rejects.toMatchObject({ code: '42P01' });
    expect([calls, waits]).toEqual([1, []]);
  });
});
