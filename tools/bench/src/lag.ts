import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { percentile } from './stats';

export interface LagResult {
  /** Validations whose effect on the balance was seen. */
  samples: number;
  p50: number;
  p99: number;
  max: number;
  /** Sampled validations whose balance had not moved when the probe gave up. */
  lost: number;
}

/**
 * Time from a validation's 200 to the first read of the partner's balance that includes it. Each
 * sampled invoice is the only one of a partner made for it, so "includes it" is "the balance is no
 * longer 0". The balance is the partners service's own row, the one `partners.partner.balance`
 * answers from; it is read straight from PostgreSQL, all samples in flight in one query every
 * `intervalMs`, so the probe adds one small query per interval and no HTTP load to the system it
 * measures. A lag is an upper bound by at most one interval and one query.
 */
export class LagProbe {
  private readonly outstanding = new Map<number, number>();
  private readonly lags: number[] = [];
  private client?: pg.Client;
  private loop?: Promise<void>;
  private running = false;

  constructor(
    private readonly databaseUrl: string,
    private readonly intervalMs = 5,
  ) {}

  async start(): Promise<void> {
    this.client = new pg.Client({ connectionString: this.databaseUrl });
    await this.client.connect();
    this.running = true;
    this.loop = this.poll();
  }

  /** A sampled validation answered 200 now. */
  validated(partnerId: number): void {
    if (this.running) this.outstanding.set(partnerId, performance.now());
  }

  /** Waits for the samples still in flight (up to `timeoutMs`), stops and condenses. */
  async finish(timeoutMs = 30_000): Promise<LagResult> {
    const deadline = performance.now() + timeoutMs;
    while (this.outstanding.size > 0 && performance.now() < deadline) await sleep(this.intervalMs);
    this.running = false;
    await this.loop;
    await this.client?.end();
    const sorted = [...this.lags].sort((a, b) => a - b);
    return {
      samples: sorted.length,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      max: sorted[sorted.length - 1] ?? 0,
      lost: this.outstanding.size,
    };
  }

  private async poll(): Promise<void> {
    const client = this.client as pg.Client;
    while (this.running) {
      if (this.outstanding.size > 0) {
        const ids = [...this.outstanding.keys()];
        const { rows } = await client.query<{ id: number }>('select id from partners.partners where id = any($1::int[]) and balance <> 0', [
          ids,
        ]);
        const now = performance.now();
        for (const { id } of rows) {
          const since = this.outstanding.get(id);
          if (since === undefined) continue;
          this.outstanding.delete(id);
          this.lags.push(now - since);
        }
      }
      await sleep(this.intervalMs);
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
