import { defineRefusals } from '@bo/runtime';

/** Every refusal of running a report, by name; `dateFromAfterDateTo` is also every list's over a range of days. */
export const reportRefusals = defineRefusals('report', {
  /** A range of days that starts after it ends. */
  dateFromAfterDateTo: () => ({ code: 'validation_failed', field: 'date_from', message: 'date_from must not be after date_to' }),
  /** A report's period that periodProblem refuses (a start after its end, or too many years), named on its field. */
  periodRefused: (problem: { field: string; message: string }) => ({
    code: 'validation_failed',
    field: problem.field,
    message: problem.message,
  }),
});
