import { defineRefusals } from '@bo/runtime';

/** Every refusal of the organization profile, by name. */
export const profileRefusals = defineRefusals('organization', {
  /** A cash rounding finer than the smallest amount of the organization's currency (0.001 in EUR, 0.5 in JPY). */
  cashRoundingTooFine: (message: string) => ({ code: 'validation_failed', field: 'cash_rounding', message }),
});
