import type { ErrorCode, FieldError } from '@bo/contracts';

/** An expected refusal: becomes a reply with this status and code, never a 500. */
export class AppError extends Error {
  /**
   * A refusal that depends on another request still running (not on the record's settled state):
   * it is not recorded under the operation key, so a retry with the key is decided afresh.
   */
  transient = false;

  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly errors?: FieldError[],
  ) {
    super(message);
  }

  /** Set by asStale: what gather found changed before apply ran, so the runtime gathers again (a few times) before answering it. */
  stale = false;

  asTransient(): this {
    this.transient = true;
    return this;
  }

  /** A transient refusal of apply because its gathered facts went stale: the write is run again from gather. */
  asStale(): this {
    this.stale = true;
    return this.asTransient();
  }
}

export const validationFailed = (message: string, errors?: FieldError[]) => new AppError(400, 'validation_failed', message, errors);
export const notFound = (what: string, id: unknown) => new AppError(400, 'not_found', `${what} ${String(id)} not found`);
export const invalidState = (message: string) => new AppError(400, 'invalid_state', message);
export const duplicate = (message: string, field?: string) =>
  new AppError(400, 'duplicate', message, field ? [{ field, message }] : undefined);

/**
 * Transport failures the gateway maps to 503 and 504. `unroutable` and `unavailable` mean the request
 * never reached a service; `timeout` and `lost` (the connection dropped while the reply was awaited)
 * mean it may have run: the outcome is unknown.
 */
export class BusError extends Error {
  constructor(
    readonly kind: 'unroutable' | 'timeout' | 'unavailable' | 'lost',
    message: string,
  ) {
    super(message);
  }
}
