/**
 * The careful client: every write carries an Idempotency-Key; a 5xx, a network error or a timeout is
 * retried with the same key and the same body (bounded attempts, back-off); a 409 (the request with
 * that key is still running) is retried later. Every attempt and every answer is recorded.
 */

export type AttemptStatus = number | 'network' | 'timeout';

export interface Attempt {
  at: number;
  ms: number;
  status: AttemptStatus;
  code?: string;
  requestId?: string;
  message?: string;
}

/** ok: a 2xx answer. refused: a definite 4xx (not 409). unknown: retries ran out on 5xx/409/errors. */
export type Outcome = 'ok' | 'refused' | 'unknown';

export interface WriteRecord {
  seq: number;
  /** Operation name, e.g. `invoicing.invoice.register_payment`. */
  op: string;
  org: number;
  path: string;
  key: string;
  body: Record<string, unknown>;
  /** What the write is about (e.g. the invoice a payment is for), for the checks. */
  tags: Record<string, string | number>;
  attempts: Attempt[];
  outcome: Outcome;
  status?: number;
  code?: string;
  reply?: Record<string, unknown>;
  /** Set by the key check after recovery: what re-sending the key answered. */
  replay?: ReplayResult;
}

export interface ReplayResult {
  attempts: Attempt[];
  status: AttemptStatus;
  code?: string;
  body?: Record<string, unknown>;
  /** Still 409 "in progress" when the wait ran out. */
  stuck: boolean;
}

export interface ClientOptions {
  /** One gateway, or several replicas: each request goes to the next one (round robin), as a load balancer would send it. */
  baseUrl: string | readonly string[];
  apiKeys: Record<number, string>;
  /** One HTTP attempt gives up after this long (the gateway should answer well before). */
  attemptTimeoutMs: number;
  maxAttempts: number;
  /** A write stops retrying after this long in all. */
  budgetMs: number;
  /**
   * How long a write keeps asking while its key answers 409 "in progress" (a twin's transaction
   * still running); then it is left unsettled for the key check to look at again.
   */
  conflictBudgetMs: number;
  keyPrefix: string;
}

export interface HttpAnswer {
  status: AttemptStatus;
  code?: string;
  body?: Record<string, unknown>;
  requestId?: string;
  echoedKey?: string;
}

/** Attempts in short: `500 internal_error x4, network ECONNREFUSED, 409 idempotency_conflict x41`. */
export function describeAttempts(attempts: readonly Attempt[]): string {
  const runs: Array<[string, number]> = [];
  for (const a of attempts) {
    const label = `${a.status}${a.code ? ` ${a.code}` : ''}`;
    const last = runs[runs.length - 1];
    if (last && last[0] === label) last[1] += 1;
    else runs.push([label, 1]);
  }
  return runs.map(([label, n]) => (n > 1 ? `${label} x${n}` : label)).join(', ');
}

/**
 * A field of a JSON answer by its path (`field(reply, 'invoice', 'id')`); undefined where the path
 * leaves the objects, as `reply['invoice']?.['id']` would read it.
 */
export function field(value: unknown, ...path: string[]): unknown {
  let at = value;
  for (const key of path) {
    if (typeof at !== 'object' || at === null) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const backoff = (attempt: number) => Math.min(200 * 2 ** (attempt - 1), 4000) * (0.5 + Math.random());
/** Whether an answer may be asked again: no answer, or a 5xx. */
export const retryable = (s: AttemptStatus) => s === 'network' || s === 'timeout' || (typeof s === 'number' && s >= 500);

export class CarefulClient {
  readonly writes: WriteRecord[] = [];
  /** Every answer seen, by `status code` (e.g. `503 outcome_unknown`, `network`). */
  readonly seen = new Map<string, number>();
  /** Every 5xx answered, with the write it belongs to. */
  readonly serverErrors: Array<{ write?: WriteRecord; phase: 'load' | 'replay' | 'read'; path: string; attempt: Attempt }> = [];
  /** Answers whose Idempotency-Key header was not the key sent. */
  readonly keyEchoMismatches: Array<{ key: string; echoed: string }> = [];
  private seq = 0;
  private readonly gateways: readonly string[];
  private nextGateway = 0;

  constructor(private readonly opts: ClientOptions) {
    this.gateways = typeof opts.baseUrl === 'string' ? [opts.baseUrl] : opts.baseUrl;
  }

  setApiKey(org: number, key: string): void {
    this.opts.apiKeys[org] = key;
  }

  get writeCount(): number {
    return this.writes.length;
  }

  private note(status: AttemptStatus, code?: string): void {
    const k = code ? `${status} ${code}` : String(status);
    this.seen.set(k, (this.seen.get(k) ?? 0) + 1);
  }

  async post(org: number, path: string, body: Record<string, unknown>, key?: string): Promise<HttpAnswer> {
    const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${this.opts.apiKeys[org]}` };
    if (key) headers['idempotency-key'] = key;
    try {
      const gateway = this.gateways[this.nextGateway++ % this.gateways.length] as string;
      const res = await fetch(gateway + path, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.opts.attemptTimeoutMs),
      });
      const text = await res.text();
      let env: { body?: Record<string, unknown> } | undefined;
      try {
        env = JSON.parse(text) as { body?: Record<string, unknown> };
      } catch {
        env = undefined;
      }
      const echoedKey = res.headers.get('idempotency-key') ?? undefined;
      if (key && echoedKey !== undefined && echoedKey !== key) this.keyEchoMismatches.push({ key, echoed: echoedKey });
      return {
        status: res.status,
        code: typeof env?.body?.['code'] === 'string' ? env.body['code'] : undefined,
        body: env?.body,
        requestId: res.headers.get('x-request-id') ?? undefined,
        echoedKey,
      };
    } catch (err) {
      const name = (err as Error).name;
      return {
        status: name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'network',
        code: (err as { cause?: { code?: string } }).cause?.code,
      };
    }
  }

  private async attempt(
    org: number,
    path: string,
    body: Record<string, unknown>,
    key: string | undefined,
    phase: 'load' | 'replay' | 'read',
    write?: WriteRecord,
  ) {
    const at = Date.now();
    const answer = await this.post(org, path, body, key);
    const attempt: Attempt = {
      at,
      ms: Date.now() - at,
      status: answer.status,
      code: answer.code,
      requestId: answer.requestId,
      message: typeof answer.body?.['message'] === 'string' ? answer.body['message'].slice(0, 200) : undefined,
    };
    this.note(answer.status, answer.code);
    if (typeof answer.status === 'number' && answer.status >= 500) this.serverErrors.push({ write, phase, path, attempt });
    return { answer, attempt };
  }

  /**
   * A write, retried as a careful client would; resolves once its outcome is known or retries ran
   * out. The body is made from the key, so a record can carry its key as a marker the checks find.
   */
  async write(
    op: string,
    org: number,
    path: string,
    makeBody: (key: string) => Record<string, unknown>,
    tags: Record<string, string | number> = {},
  ): Promise<WriteRecord> {
    const seq = ++this.seq;
    const key = `${this.opts.keyPrefix}-${seq}`;
    const body = makeBody(key);
    const record: WriteRecord = { seq, op, org, path, key, body, tags, attempts: [], outcome: 'unknown' };
    this.writes.push(record);
    const started = Date.now();
    let failures = 0;
    let firstConflict: number | undefined;
    for (;;) {
      const { answer, attempt } = await this.attempt(org, path, body, record.key, 'load', record);
      record.attempts.push(attempt);
      const s = answer.status;
      if (typeof s === 'number' && s < 300) {
        Object.assign(record, { outcome: 'ok', status: s, reply: answer.body });
        return record;
      }
      if (typeof s === 'number' && s < 500 && s !== 409) {
        Object.assign(record, { outcome: 'refused', status: s, code: answer.code, reply: answer.body });
        return record;
      }
      if (s !== 409) failures += 1;
      else firstConflict ??= Date.now();
      const elapsed = Date.now() - started;
      const conflicted = firstConflict !== undefined && Date.now() - firstConflict >= this.opts.conflictBudgetMs;
      if (failures >= this.opts.maxAttempts || elapsed >= this.opts.budgetMs || conflicted) {
        Object.assign(record, {
          outcome: 'unknown',
          status: typeof s === 'number' ? s : undefined,
          code: answer.code ?? (typeof s === 'string' ? s : undefined),
        });
        return record;
      }
      // 409: the first request with this key is still running somewhere; ask again a bit later.
      await sleep(s === 409 ? 500 + Math.random() * 500 : backoff(failures));
    }
  }

  /** A read (no key), retried a few times on 5xx and errors; the caller sees the last answer. */
  async read(org: number, path: string, body: Record<string, unknown>, tries = 6): Promise<HttpAnswer> {
    for (let i = 1; ; i++) {
      const { answer } = await this.attempt(org, path, body, undefined, 'read');
      if (!retryable(answer.status) || i >= tries) return answer;
      await sleep(backoff(i));
    }
  }

  /**
   * Re-sends a write's key and body after recovery: waits out 409 for up to `stuckMs` and retries
   * 5xx a few times. What it answers is compared with the first outcome by the key check.
   */
  async replay(record: WriteRecord, stuckMs: number, tries = 6): Promise<ReplayResult> {
    const attempts: Attempt[] = [];
    let firstConflict: number | undefined;
    let failures = 0;
    for (;;) {
      const { answer, attempt } = await this.attempt(record.org, record.path, record.body, record.key, 'replay', record);
      attempts.push(attempt);
      const s = answer.status;
      if (s === 409) {
        firstConflict ??= Date.now();
        if (Date.now() - firstConflict >= stuckMs) return { attempts, status: s, code: answer.code, body: answer.body, stuck: true };
        await sleep(500);
        continue;
      }
      if (retryable(s)) {
        failures += 1;
        if (failures >= tries) return { attempts, status: s, code: answer.code, body: answer.body, stuck: false };
        await sleep(backoff(failures));
        continue;
      }
      return { attempts, status: s, code: answer.code, body: answer.body, stuck: false };
    }
  }
}
