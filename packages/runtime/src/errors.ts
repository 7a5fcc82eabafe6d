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
 * What a module's refusal answers: a 400 with its code, a message, and the request field it names, if
 * any (with the same message); or `errors`, the fields it names each with a message of its own.
 */
export type RefusalAnswer =
  | { code: ErrorCode; message: string; field?: string; errors?: never }
  | { code: ErrorCode; message: string; field?: never; errors: FieldError[] };

/**
 * A refusal a module names (defineRefusals): an AppError that also says which of its module's
 * refusals it is, so a caller or a test tells them apart by name rather than by message.
 */
export class Refused<Name extends string = string> extends AppError {
  constructor(
    readonly refusal: Name,
    answer: RefusalAnswer,
  ) {
    super(
      400,
      answer.code,
      answer.message,
      answer.errors ?? (answer.field === undefined ? undefined : [{ field: answer.field, message: answer.message }]),
    );
  }
}

/** Whether `err` is the refusal `name` of a module (defineRefusals' names are `module.refusal`). */
export function isRefusal<Name extends string>(err: unknown, name: Name): err is Refused<Name> {
  return err instanceof Refused && err.refusal === name;
}

type RefusalDefs = Record<string, (...args: never[]) => RefusalAnswer>;

/**
 * A module's refusals in one place: each a named constructor of a Refused whose name is
 * `module.refusal`, typed by its arguments, so a decision throws (or returns) a refusal by name and
 * a test asserts that name.
 */
export function defineRefusals<const Module extends string, const Defs extends RefusalDefs>(
  module: Module,
  defs: Defs,
): { [K in keyof Defs & string]: (...args: Parameters<Defs[K]>) => Refused<`${Module}.${K}`> } {
  const made: Record<string, (...args: never[]) => Refused> = {};
  for (const [name, answer] of Object.entries(defs)) made[name] = (...args) => new Refused(`${module}.${name}`, answer(...args));
  return made as never;
}

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
