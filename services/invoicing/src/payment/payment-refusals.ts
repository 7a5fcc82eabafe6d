import { AppError, validationFailed } from '@bo/runtime';
import type { Refusal } from '../domain/cash';

/** How the cash operations refuse: every refusal is a 400 naming its field, thrown before anything is written. */

/** Refusals as one 400: the first one's code, every one in `errors[]`. */
export function refuse(refusals: Refusal[]): never {
  const [first] = refusals as [Refusal, ...Refusal[]];
  throw new AppError(
    400,
    first.code,
    refusals.map((r) => r.message).join('; '),
    refusals.map((r) => ({ field: r.field, message: r.message })),
  );
}

export function refuseField(field: string, message: string): never {
  throw validationFailed(message, [{ field, message }]);
}
