import { defineRefusals } from '@bo/runtime';

/** Every refusal of reminders (dunning), by name (an invoice not found is the invoice module's invoiceNotFound). */
export const dunningRefusals = defineRefusals('dunning', {
  /** A fee account that feeAccountProblem refuses. */
  feeAccountRefused: (problem: string) => ({
    code: 'validation_failed',
    message: `fee_account ${problem}`,
    errors: [{ field: 'fee_account', message: problem }],
  }),
  /** Reminder levels that levelsProblem refuses (their order or days), named on their field. */
  levelsRefused: (problem: { field: string; message: string }) => ({
    code: 'validation_failed',
    field: problem.field,
    message: problem.message,
  }),
  /** Statutory interest points below the 8 that Directive 2011/7/EU asks for. */
  pointsBelowStatutory: (points: string) => ({
    code: 'validation_failed',
    message: `points ${points} is below the statutory 8`,
    errors: [{ field: 'points', message: 'must be at least 8 percentage points above the reference rate (Directive 2011/7/EU)' }],
  }),
  /** A dispute of a document other than a customer invoice: only those get reminders. */
  disputeOfNonCustomerInvoice: (invoiceId: number, invoicetype: string) => ({
    code: 'validation_failed',
    field: 'invoice_id',
    message: `invoice ${invoiceId} is a ${invoicetype}: only customer invoices (invoiceout) get reminders`,
  }),
  /** No reminder letter of the organization by that id. */
  letterNotFound: (letterId: number) => ({ code: 'not_found', message: `Letter ${letterId} not found` }),
});
