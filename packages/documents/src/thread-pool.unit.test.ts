import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BroadcastChannel, Worker } from 'node:worker_threads';
import { transformSync } from 'esbuild';
import { ThreadPool } from './thread-pool';

interface Job {
  value?: number;
  /** Say it started, then answer only once the test releases `value`. */
  gated?: boolean;
  /** Stop instead of answering: exit with `code`, throw, or spin past any time limit. */
  stop?: 'exit' | 'throw' | 'spin';
  code?: number;
}
interface Answer {
  id: number;
  value: number;
  thread: number;
}

/** The test's thread: answers which job it ran on which thread, or stops as the job asks. */
const THREAD = `
const { BroadcastChannel, parentPort, threadId, workerData } = require('node:worker_threads');
const channel = new BroadcastChannel(workerData.channel);
const released = new Set();
const held = new Map();
channel.onmessage = ({ data }) => {
  released.add(data.release);
  held.get(data.release)?.();
};
parentPort.on('message', (job) => {
  if (job.stop === 'exit') process.exit(job.code);
  if (job.stop === 'throw') throw new Error('the job broke its thread');
  if (job.stop === 'spin') for (;;);
  channel.postMessage({ started: job.value });
  const answer = () => parentPort.postMessage({ id: job.id, value: job.value, thread: threadId });
  if (job.gated && !released.has(job.value)) held.set(job.value, answer);
  else answer();
});
`;

/** A thread that says whether it holds the process open (ref'd), as the pool last asked. */
class Watched extends Worker {
  holding = true;
  override ref(): void {
    this.holding = true;
    super.ref();
  }
  override unref(): void {
    this.holding = false;
    super.unref();
  }
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

let pools = 0;
/** A pool of test threads, the threads it started, the jobs they started in the order they said so, and the gates. */
function testPool(size: number, timeoutMs?: number) {
  const name = `thread-pool-test-${process.pid}-${++pools}`;
  const threads: Watched[] = [];
  const started: number[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const channel = new BroadcastChannel(name);
  channel.onmessage = (event) => {
    started.push((event.data as { started: number }).started);
    for (const w of waiters.filter((w) => started.length >= w.count)) w.resolve();
  };
  cleanups.push(async () => {
    channel.close();
    await Promise.all(threads.map((t) => t.terminate()));
  });
  const pool = new ThreadPool<Job, Answer>({
    spawn: () => {
      const thread = new Watched(THREAD, { eval: true, workerData: { channel: name } });
      threads.push(thread);
      return thread;
    },
    size,
    timeoutMs,
    lost: (code) => `the test thread stopped (exit code ${code})`,
  });
  return {
    pool,
    threads,
    started,
    /** Resolves once `count` jobs have started. */
    startedCount: (count: number) =>
      new Promise<void>((resolve) => (started.length >= count ? resolve() : waiters.push({ count, resolve }))),
    release: (value: number) => channel.postMessage({ release: value }),
  };
}

describe('ThreadPool', () => {
  it('runs jobs in order, as many at once as it has threads, and queues the rest', async () => {
    const t = testPool(2);
    const answers = [0, 1, 2, 3].map((value) => t.pool.run({ value, gated: true }));
    expect(t.threads).toHaveLength(2);

    await t.startedCount(2);
    expect([...t.started].sort()).toEqual([0, 1]);
    t.release(0);
    await t.startedCount(3);
    expect(t.started[2]).toBe(2);
    t.release(1);
    await t.startedCount(4);
    expect(t.started[3]).toBe(3);
    t.release(2);
    t.release(3);

    const done = await Promise.all(answers);
    expect(done.map((a) => a.value)).toEqual([0, 1, 2, 3]);
    expect(new Set(done.map((a) => a.thread))).toEqual(new Set(t.threads.map((thread) => thread.threadId)));
    expect(t.threads).toHaveLength(2);
  });

  it('fails the job whose thread exits under it, and serves the next on a new thread', async () => {
    const t = testPool(1);
    const dying = t.pool.run({ stop: 'exit', code: 7 });
    const next = t.pool.run({ value: 1 });
    await expect(dying).rejects.toThrow('the test thread stopped (exit code 7)');
    const answer = await next;
    expect(answer.value).toBe(1);
    expect(t.threads).toHaveLength(2);
    expect(answer.thread).toBe(t.threads[1]!.threadId);
  });

  it("fails the job whose thread throws with the thread's error, and goes on", async () => {
    const t = testPool(1);
    const broken = t.pool.run({ stop: 'throw' });
    const next = t.pool.run({ value: 1 });
    await expect(broken).rejects.toThrow('the job broke its thread');
    expect((await next).value).toBe(1);
    expect(t.threads).toHaveLength(2);
  });

  it('ends the thread of a job past its time limit, fails the job, and goes on', async () => {
    const t = testPool(1, 1000);
    const spinning = t.pool.run({ stop: 'spin' });
    const next = t.pool.run({ value: 1 });
    await expect(spinning).rejects.toThrow('the test thread stopped (exit code 1)');
    expect((await next).value).toBe(1);
    expect(t.threads).toHaveLength(2);
  });

  it('holds the process open while a job runs, and not once its threads are idle', async () => {
    const t = testPool(2);
    const running = t.pool.run({ value: 0, gated: true });
    await t.startedCount(1);
    expect(t.threads.map((thread) => thread.holding)).toEqual([true]);
    t.release(0);
    await running;
    expect(t.threads.map((thread) => thread.holding)).toEqual([false]);
  });

  it('lets a process whose pool is idle exit', async () => {
    // This module, as CommonJS, run by a process of its own that asks one job and then has nothing left to do.
    const source = readFileSync(join(__dirname, 'thread-pool.ts'), 'utf8');
    const { code } = transformSync(source, { loader: 'ts', format: 'cjs' });
    const script = `${code}
const { Worker } = require('node:worker_threads');
const echo = "const { parentPort } = require('node:worker_threads'); parentPort.on('message', (job) => parentPort.postMessage(job));";
const pool = new module.exports.ThreadPool({ spawn: () => new Worker(echo, { eval: true }), size: 1, lost: String });
pool.run({ value: 42 }).then((answer) => console.log(answer.value));
`;
    // The time limit only ends a process the pool would keep alive, which fails the test.
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', script], { timeout: 20_000 });
    expect(stdout).toBe('42\n');
  });
});
