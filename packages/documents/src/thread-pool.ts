import type { Worker } from 'node:worker_threads';

export interface ThreadPoolOptions<Task> {
  /** Starts one thread: a worker that answers each message it is posted with one `{ id, … }` result. */
  spawn: () => Worker;
  /** The most threads at once; each starts when a job first finds none idle. */
  size: number;
  /** A job still running after this long ends its thread, and so fails; without it a job runs as long as it takes. */
  timeoutMs?: number;
  /** The message of the error a job fails with when its thread stops under it, by the thread's exit code. */
  lost: (exitCode: number) => string;
  /** What is posted for a job (its id included), made when the job is queued; the job itself without it. */
  encode?: (job: Task & { id: number }) => unknown;
}

interface Waiter<Result> {
  resolve: (result: Result) => void;
  reject: (err: Error) => void;
}

/**
 * A pool of worker threads for work that holds its thread in one synchronous stretch, which on the
 * service's own thread would delay every other request the process holds.
 *
 * - One job per thread at a time, queued in order; threads start on demand, up to `size`.
 * - A thread is ref'd while it runs a job, so the process waits for the result it asked for, and
 *   unref'd when idle, so an idle pool keeps no process alive.
 * - A thread that stops (it crashed, or its job ran past `timeoutMs` and it was ended) fails the job
 *   it held, whose caller would otherwise wait forever, and the job is not retried, as it may be what
 *   stopped the thread; the next job gets a new thread.
 */
export class ThreadPool<Task extends object, Result extends { id: number }> {
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, { id: number; timer: NodeJS.Timeout | undefined }>();
  private readonly queue: { id: number; message: unknown }[] = [];
  private readonly waiting = new Map<number, Waiter<Result>>();
  private threads = 0;
  private nextId = 1;

  constructor(private readonly options: ThreadPoolOptions<Task>) {}

  /** The thread's result for the task, or an Error if its thread stopped under it. */
  run(task: Task): Promise<Result> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      const job = { ...task, id };
      this.queue.push({ id, message: this.options.encode ? this.options.encode(job) : job });
      this.pump();
    });
  }

  private pump(): void {
    while (this.queue.length > 0) {
      const worker = this.idle.pop() ?? (this.threads < this.options.size ? this.spawn() : undefined);
      if (!worker) return;
      const job = this.queue.shift()!;
      const { timeoutMs } = this.options;
      const timer = timeoutMs === undefined ? undefined : setTimeout(() => void worker.terminate(), timeoutMs);
      this.busy.set(worker, { id: job.id, timer });
      worker.ref();
      worker.postMessage(job.message);
    }
  }

  private spawn(): Worker {
    this.threads++;
    const worker = this.options.spawn();
    worker.on('message', (result: Result) => {
      clearTimeout(this.busy.get(worker)?.timer);
      this.busy.delete(worker);
      worker.unref();
      this.idle.push(worker);
      this.settle(result.id, (w) => w.resolve(result));
      this.pump();
    });
    let gone = false;
    const lost = (err: Error) => {
      if (gone) return;
      gone = true;
      this.threads--;
      const index = this.idle.indexOf(worker);
      if (index >= 0) this.idle.splice(index, 1);
      const running = this.busy.get(worker);
      this.busy.delete(worker);
      if (running) {
        clearTimeout(running.timer);
        this.settle(running.id, (w) => w.reject(err));
      }
      this.pump();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(this.options.lost(code))));
    return worker;
  }

  private settle(id: number, how: (w: Waiter<Result>) => void): void {
    const w = this.waiting.get(id);
    if (!w) return;
    this.waiting.delete(id);
    how(w);
  }
}
