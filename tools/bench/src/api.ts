/** A plain client of the gateway for seeding, outside any measured window. */
export class Api {
  constructor(
    readonly base: string,
    readonly token: string,
  ) {}

  /** POSTs and returns the envelope's body; anything but a 200 throws, naming the path and the reply. */
  async ok<B = Record<string, unknown>>(path: string, body: Record<string, unknown>): Promise<B> {
    const res = await fetch(this.base + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${this.token}` },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`seeding: ${path} answered ${res.status}: ${text.slice(0, 500)}`);
    return (JSON.parse(text) as { body: B }).body;
  }
}

/** Runs `work(0) … work(count - 1)`, at most `concurrency` at a time, and returns the results in order. */
export async function inParallel<T>(count: number, concurrency: number, work: (i: number) => Promise<T>): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      results[i] = await work(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return results;
}
