import { defineRefusals } from '@bo/runtime';

/** Every refusal of a recurring contract, by name (a contract not found is the invoice module's invoiceNotFound). */
export const recurringRefusals = defineRefusals('recurring', {
  /** An invoice named as a contract that does not recur. */
  notRecurringContract: (invoicenumber: string) => ({
    code: 'invalid_state',
    message: `Invoice ${invoicenumber} is not a recurring contract`,
  }),
  /** A cancel of a contract that is neither active nor paused. */
  contractAlreadyEnded: (invoicenumber: string, status: string | null) => ({
    code: 'invalid_state',
    message: `Recurring contract ${invoicenumber} is already ${status}`,
  }),
  /** A pause of a contract that is not active. */
  pauseOfInactiveContract: (invoicenumber: string, status: string | null) => ({
    code: 'invalid_state',
    message: `Recurring contract ${invoicenumber} is ${status}; only an active contract can be paused`,
  }),
  /** A resume of a contract that is not paused. */
  resumeOfUnpausedContract: (invoicenumber: string, status: string | null) => ({
    code: 'invalid_state',
    message: `Recurring contract ${invoicenumber} is ${status}; only a paused contract can be resumed`,
  }),
  /** A child asked of a contract that is not active, or has no next run. */
  childOfInactiveContract: (invoicenumber: string, status: string | null) => ({
    code: 'invalid_state',
    message: `Recurring contract ${invoicenumber} is ${status}; only an active contract makes child invoices`,
  }),
  /** A child asked more than one period ahead of the contract's schedule. */
  childTooEarly: (invoicenumber: string, nextRunDate: string | null, from: string) => ({
    code: 'invalid_state',
    message:
      `Recurring contract ${invoicenumber}: the next child (from ${nextRunDate}) may be generated from ${from} on; ` +
      'a child invoice can be generated at most one period ahead of the schedule',
  }),
});
