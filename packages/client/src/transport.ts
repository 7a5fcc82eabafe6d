import { describeSelector, resolveOperation, type FieldError, type Operation } from '@bo/contracts';
import { ApiError, NetworkError, type ApiErrorCode } from './errors';
import { isRetryable, retryAfterMs, retryDelay, retryPolicyOf, type AttemptOutcome, type RetryPolicy } from './retry';

export interface ClientOptions {
  /** Where the gateway listens, e.g. `http://localhost:3000`. */
  baseUrl: string;
  /** An API key of the organization the calls are for (`npm run apikey -- create --org <N>`); sent as a bearer token. */
  apiKey?: string;
  /** Replaces the global fetch (a proxy agent, instrumentation, tests). */
  fetch?: typeof fetch;
  /** Overrides of the retry policy, or `false` to send every call once. */
  retry?: Partial<RetryPolicy> | false;
  /** Sent with every call (e.g. `language`). */
  headers?: Record<string, string>;
  /**
   * How long one attempt may wait for its answer before it is given up (and retried, a write with its
   * key: its outcome is unknown). Above the gateway's own `RPC_TIMEOUT_MS` (5 s by default, after
   * which it answers 504), so a live gateway answers first; this ends attempts on a connection that
   * went silent, which would otherwise wait for the OS (minutes). Default 30 s. An operation whose
   * work is long by nature (`timeoutMs` in its contract: an e-invoice import, a render) is waited
   * for 10 s longer than the gateway waits for it, if that is longer.
   */
  timeoutMs?: number;
}

export const defaultTimeoutMs = 30_000;
/** How much longer than the gateway an attempt waits for an operation of a long wait of its own, so the gateway's 504 comes first. */
const GATEWAY_ANSWERS_FIRST_MS = 10_000;

/** How long one attempt at `op` waits for its answer (ClientOptions.timeoutMs). */
export function attemptWaitMs(op: Pick<Operation, 'timeoutMs'>, timeoutMs: number): number {
  return Math.max(timeoutMs, op.timeoutMs ? op.timeoutMs + GATEWAY_ANSWERS_FIRST_MS : 0);
}

export interface CallOptions {
  /** For writes: the key to send (made up per call when absent); reuse it to retry a call later. */
  idempotencyKey?: string;
  /** Sent as X-Request-Id, so the call can be found in the logs under an id of the caller's. */
  requestId?: string;
  signal?: AbortSignal;
}

interface Envelope {
  statusCode: number;
  body: Record<string, unknown>;
}

/** One call of an operation: the selector filled in, the key on writes, retries, the envelope unwrapped. */
export class Transport {
  private readonly baseUrl: string;
  private readonly fetch: typeof fetch;
  private readonly policy: RetryPolicy;
  private readonly timeoutMs: number;

  constructor(private readonly options: ClientOptions) {
    this.timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
    if (!(Number.isFinite(this.timeoutMs) && this.timeoutMs > 0))
      throw new TypeError(`timeoutMs must be a positive number of milliseconds, got ${this.timeoutMs}`);
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.policy = retryPolicyOf(options.retry);
  }

  async call(op: Operation, body: object, options: CallOptions = {}): Promise<unknown> {
    const path = op.paths[0];
    if (path === undefined) throw new Error(`${op.name} is internal: it has no HTTP path`);
    const idempotencyKey = op.write ? (options.idempotencyKey ?? globalThis.crypto.randomUUID()) : undefined;
    const headers: Record<string, string> = { ...this.options.headers, 'content-type': 'application/json' };
    if (this.options.apiKey) headers['authorization'] = `Bearer ${this.options.apiKey}`;
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    if (options.requestId) headers['x-request-id'] = options.requestId;
    const sent = withSelector(op, body);
    assertSelects(op, path, sent);
    const init: RequestInit = { method: 'POST', headers, body: JSON.stringify(sent) };

    for (let attempt = 1; ; attempt++) {
      const trace = { operation: op.name, idempotencyKey, attempts: attempt, requestId: options.requestId };
      let outcome: AttemptOutcome;
      let failure: ApiError | NetworkError;
      // Per attempt, so a retry gets its full time; the answer's body is read under it too.
      const waitMs = attemptWaitMs(op, this.timeoutMs);
      const timeout = AbortSignal.timeout(waitMs);
      const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
      try {
        const res = await this.fetch(this.baseUrl + path, { ...init, signal });
        const answer = await readAnswer(res);
        const requestId = res.headers.get('x-request-id') ?? options.requestId;
        if (answer.envelope && res.ok) return answer.envelope.body;
        const error = answer.envelope ? errorOf(answer.envelope.body) : undefined;
        const wait = retryAfterMs(res.headers.get('retry-after'));
        outcome = { kind: 'answer', status: res.status, code: error?.code, retryAfterMs: wait };
        const refusal = error ?? {
          code: 'invalid_response' as const,
          message: `HTTP ${res.status} without the API's envelope${answer.text ? `: ${answer.text.slice(0, 200)}` : ''}`,
        };
        failure = new ApiError(
          { status: res.status, ...refusal, retryAfterMs: wait },
          { ...trace, requestId: error?.requestId ?? requestId },
        );
      } catch (err) {
        // An abort is the caller's decision, not a failure to retry.
        if (options.signal?.aborted) throw err;
        outcome = { kind: 'network' };
        const cause = timeout.aborted ? new Error(`no answer within ${waitMs} ms (timeoutMs)`, { cause: err }) : err;
        failure = new NetworkError(cause, trace);
      }
      const asked = outcome.kind === 'answer' ? outcome.retryAfterMs : undefined;
      if (attempt >= this.policy.attempts || !isRetryable(outcome, op.write)) throw failure;
      // A wait longer than the caller accepts is theirs to decide (ApiError.retryAfterMs says how long).
      if (asked !== undefined && asked > this.policy.maxRetryAfterMs) throw failure;
      const delayMs = retryDelay(this.policy, attempt + 1, Math.random, asked);
      this.policy.onRetry?.({
        operation: op.name,
        attempt: attempt + 1,
        delayMs,
        reason: outcome.kind === 'network' ? 'network' : `${outcome.status} ${outcome.code ?? ''}`.trim(),
      });
      await sleep(delayMs, options.signal);
    }
  }
}

/** The body with the field that picks the operation on its path (`action`, a flag) set. */
function withSelector(op: Operation, body: object): object {
  if ('action' in op.select) return { ...body, action: op.select.action };
  if ('flag' in op.select) return { ...body, [op.select.flag]: true };
  return body;
}

/**
 * Throws, before anything is sent, when the gateway would route `body` to another operation than
 * `op`: on a shared path a field of a neighbour's selector (`product_id` on a create, `delete: true`)
 * picks that neighbour, so `product.create(obj)` with an `obj` carrying `product_id` would edit.
 */
function assertSelects(op: Operation, path: string, body: object): void {
  const resolution = resolveOperation(path, body as Record<string, unknown>);
  if (resolution.kind === 'operation' && resolution.operation.name === op.name) return;
  const why =
    resolution.kind === 'operation'
      ? `selects ${resolution.operation.name} (${describeSelector(resolution.operation.select)}) there; remove that field, or call ${resolution.operation.name}`
      : resolution.kind === 'unknown_action'
        ? `is refused there: ${resolution.message}`
        : 'is not a path the gateway routes';
  throw new TypeError(`${op.name}: the body sent to ${path} ${why}`);
}

async function readAnswer(res: Response): Promise<{ envelope?: Envelope; text: string }> {
  const text = await res.text();
  try {
    const json: unknown = JSON.parse(text);
    if (isEnvelope(json)) return { envelope: json, text };
  } catch {
    // Not JSON: reported as an invalid response below.
  }
  return { text };
}

function isEnvelope(value: unknown): value is Envelope {
  if (value === null || typeof value !== 'object') return false;
  const { statusCode, body } = value as Record<string, unknown>;
  return typeof statusCode === 'number' && body !== null && typeof body === 'object' && !Array.isArray(body);
}

/** The error body of an envelope (`request_id` is there on 5xx answers only). */
function errorOf(
  body: Record<string, unknown>,
): { code: ApiErrorCode; message: string; errors?: FieldError[]; requestId?: string } | undefined {
  const { code, message, errors, request_id: requestId } = body;
  if (typeof code !== 'string' || typeof message !== 'string') return undefined;
  return {
    code: code as ApiErrorCode,
    message,
    errors: Array.isArray(errors) ? (errors as FieldError[]) : undefined,
    requestId: typeof requestId === 'string' ? requestId : undefined,
  };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal!));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** What the caller aborted with (a DOMException unless it gave its own reason). */
function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error(String(reason));
}
