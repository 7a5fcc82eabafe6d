import type { ErrorCode, FieldError } from '@bo/contracts';

/** `invalid_response`: the answer was not the API's envelope (a proxy's error page, a cut-off body). */
export type ApiErrorCode = ErrorCode | 'invalid_response';

/** Where a failed call was going and how it was sent: what support needs to find it in the logs. */
export interface CallTrace {
  operation: string;
  /** The request id the gateway logged the call under (the last attempt's). */
  requestId?: string;
  /** The Idempotency-Key the write was sent with: retrying with it later is safe. */
  idempotencyKey?: string;
  /** How many times the call was sent. */
  attempts: number;
}

/** The API refused the call, or could not complete it: the error body of the envelope, typed. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly code: ApiErrorCode;
  /** Per-field reasons of a `validation_failed` refusal; empty otherwise. */
  readonly errors: FieldError[];
  readonly operation: string;
  readonly requestId?: string;
  readonly idempotencyKey?: string;
  readonly attempts: number;
  /** The answer's `Retry-After` in ms (a 429 `rate_limited` has one): when asking again may succeed. */
  readonly retryAfterMs?: number;

  constructor(
    answer: { status: number; code: ApiErrorCode; message: string; errors?: FieldError[]; retryAfterMs?: number },
    trace: CallTrace,
  ) {
    super(answer.message);
    this.status = answer.status;
    this.code = answer.code;
    this.errors = answer.errors ?? [];
    this.retryAfterMs = answer.retryAfterMs;
    this.operation = trace.operation;
    this.requestId = trace.requestId;
    this.idempotencyKey = trace.idempotencyKey;
    this.attempts = trace.attempts;
  }
}

/**
 * No answer reached the client (connection refused or reset, DNS, TLS). For a write the outcome is
 * unknown: sending it again with `idempotencyKey` is safe and returns the original result.
 */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';
  readonly operation: string;
  readonly requestId?: string;
  readonly idempotencyKey?: string;
  readonly attempts: number;

  constructor(cause: unknown, trace: CallTrace) {
    super(
      `${trace.operation}: no answer from the API after ${trace.attempts} attempt(s): ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
    this.operation = trace.operation;
    this.requestId = trace.requestId;
    this.idempotencyKey = trace.idempotencyKey;
    this.attempts = trace.attempts;
  }
}
