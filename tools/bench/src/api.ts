/** Attempts of one request whose outcome stays open (Api.ok). */
const MAX_ATTEMPTS = 5;

/** A plain client of the gateway: for seeding, and for the writes whose statements are counted one at a time. */
export class Api {
  constructor(
    readonly base: string,
    readonly token: string,
  ) {}

  /**
   * POSTs and returns the envelope's body; anything but a 200 throws, naming the path and the reply.
   * An answer that leaves the outcome open (503, 504: the service did not answer in time, as on a
   * loaded machine) is asked again under the Idempotency-Key the gateway gave the first attempt, as a
   * careful client does: the write takes effect once, and its first answer comes back.
   */
  async ok<B = Record<string, unknown>>(path: string, body: Record<string, unknown>): Promise<B> {
    let key: string | undefined;
    for (let attempt = 1; ; attempt++) {
      const res = await fetch(this.base + path, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${this.token}`,
          ...(key ? { 'idempotency-key': key } : {}),
        },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      if (res.status === 200) return (JSON.parse(text) as { body: B }).body;
      key ??= res.headers.get('idempotency-key') ?? undefined;
      // 409 here is the first attempt still running under the key.
      const open = res.status === 503 || res.status === 504 || (res.status === 409 && attempt > 1);
      if (!open || key === undefined || attempt === MAX_ATTEMPTS) {
        throw new Error(`seeding: ${path} answered ${res.status} (attempt ${attempt}): ${text.slice(0, 500)}`);
      }
      await new Promise((r) => setTimeout(r, 250 * 2 ** attempt));
    }
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
