/**
 * Runs `work` for what callers ask: at once when idle, and whatever is asked while it runs goes
 * together into its next call (at most `max` items each). Under load many callers share one
 * statement or transaction; a quiet caller waits for nothing. `work` answers each item, in order.
 */
export class Batched<I, O> {
  private waiting: Array<{ item: I; resolve(result: O): void; reject(err: unknown): void }> = [];
  private running = false;

  constructor(
    private readonly work: (items: I[]) => Promise<O[]>,
    private readonly max: number,
  ) {}

  run(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.next();
    });
  }

  private next(): void {
    if (this.running || this.waiting.length === 0) return;
    this.running = true;
    const batch = this.waiting.splice(0, this.max);
    void this.work(batch.map((w) => w.item))
      .then(
        (results) => batch.forEach((w, i) => w.resolve(results[i] as O)),
        (err: unknown) => batch.forEach((w) => w.reject(err)),
      )
      .finally(() => {
        this.running = false;
        this.next();
      });
  }
}
