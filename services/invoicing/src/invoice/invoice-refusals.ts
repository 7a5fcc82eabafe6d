import type { ErrorCode, FieldError } from '@bo/contracts';
import { defineRefusals } from '@bo/runtime';

/** A refusal value of a pure rule (domain/): its code, the field it names and why. */
interface FieldRefusal {
  field: string;
  message: string;
}

/**
 * Every refusal of the invoice module, by name: what its decisions and handlers throw, and what
 * their tests assert. A credit limit (the partner's ceiling on what it owes), a credit note (a
 * document crediting an invoice) and customer credit (money a customer has on account, the payment
 * module's) are three different things, named apart.
 */
export const invoiceRefusals = defineRefusals('invoice', {
  /** No invoice (or bill, or credit note) of the organization by that id; another organization's is not found either. */
  invoiceNotFound: (invoiceId: number) => ({ code: 'not_found', message: `Invoice ${invoiceId} not found` }),
  /** The partner of an invoice whose credit limit is checked is not found by the partners service. */
  partnerNotFound: (partnerId: number) => ({ code: 'not_found', message: `Partner ${partnerId} not found` }),
  /** A posting dated on or before the organization's lock date (lockDateRefusal), named on the field that dated it. */
  lockDatePassed: (refusal: FieldRefusal) => ({ code: 'validation_failed', field: refusal.field, message: refusal.message }),
  /** An invoice number another document of the organization already has. */
  invoiceNumberTaken: (invoicenumber: string) => ({
    code: 'duplicate',
    field: 'invoicenumber',
    message: `Invoice number ${invoicenumber} already exists`,
  }),
  /** A due date before the invoice's date. */
  dueBeforeInvoiceDate: (invoicedue: string, invoiceDate: string) => ({
    code: 'validation_failed',
    message: 'invoicedue must not be before the invoice date',
    errors: [{ field: 'invoicedue', message: `invoicedue ${invoicedue} is before the invoice date ${invoiceDate}` }],
  }),
  /** Lines of a new invoice whose totals are too large (lineTotalProblem), each named on its quantity. */
  lineTotalsTooLarge: (problems: FieldError[]) => ({
    code: 'validation_failed',
    message: problems.map((e) => e.message).join('; '),
    errors: problems,
  }),
  /** A line added whose total is too large (lineTotalProblem says how). */
  lineTotalTooLarge: (problem: string) => ({ code: 'validation_failed', field: 'quantity', message: problem }),
  /** `restock: false` on a document that is no credit note: an invoice always moves its goods. */
  restockOnlyOnCreditNote: (invoicetype: string) => ({
    code: 'validation_failed',
    field: 'restock',
    message: `restock: false is a credit note's choice; an ${invoicetype} always moves its goods`,
  }),
  /** A recurring invoice without its frequency (the message is the contract's own). */
  recurringFrequencyRequired: (message: string) => ({ code: 'validation_failed', field: 'recurring.frequency', message }),
  /** A recurring invoice starting more than a year in the past. */
  recurringStartTooEarly: (start: string, earliest: string) => ({
    code: 'validation_failed',
    field: 'recurring.start_date',
    message: `invalid recurring configuration: start_date ${start} is more than a year in the past (earliest ${earliest})`,
  }),
  /** A list of invoices over a range of amounts whose least is above its most. */
  amountRangeReversed: () => ({
    code: 'validation_failed',
    field: 'amount_min',
    message: 'amount_min must not be more than amount_max',
  }),
  /** A line added to an invoice that is no longer a draft or proforma. */
  lineAddedToIssued: (invoicenumber: string, status: string) => ({
    code: 'invalid_state',
    message: `Lines can only be added to draft or proforma invoices; invoice ${invoicenumber} is ${status}`,
  }),
  /** A line added to an invoice that already has the most lines an invoice can. */
  tooManyLines: (invoicenumber: string, maxLines: number) => ({
    code: 'invalid_state',
    message: `Invoice ${invoicenumber} already has the maximum of ${maxLines} lines`,
  }),
  /** An exchange rate that does not go with the invoice's currency (exchangeRateProblem says how). */
  exchangeRateRefused: (problem: string) => ({ code: 'validation_failed', field: 'exchange_rate', message: problem }),
  /** A foreign-currency invoice validated with no exchange rate given and none in the table on or before its day. */
  exchangeRateMissing: (currency: string, accounting: string, day: string) => ({
    code: 'validation_failed',
    field: 'exchange_rate',
    message: `the invoice is in ${currency} and the organization books in ${accounting}: give exchange_rate (${accounting} per 1 ${currency}), or set a rate for ${currency} on or before ${day} (/invoicing/exchangerates)`,
  }),
  /** Reverse-charge rates that the document's taxes refuse, each named. */
  reverseChargeRatesRefused: (errors: FieldError[]) => ({
    code: 'validation_failed',
    message: errors.map((e) => e.message).join('; '),
    errors,
  }),
  /** A validation of a document that is no longer a draft or proforma. */
  validationOfIssued: (invoicenumber: string, status: string) => ({
    code: 'invalid_state',
    message: `Invoice ${invoicenumber} cannot be validated: it is ${status}; only draft or proforma invoices can be validated`,
  }),
  /** A validation of a document with no lines. */
  validationWithoutLines: (invoicenumber: string) => ({
    code: 'invalid_state',
    message: `Invoice ${invoicenumber} cannot be validated: it has no lines`,
  }),
  /** A cancellation of an invoice that cannot be cancelled (cancelRefusal says why). */
  cancellationRefused: (invoicenumber: string, refusal: string) => ({
    code: 'invalid_state',
    message: `Invoice ${invoicenumber} cannot be cancelled: ${refusal}`,
  }),
  /** A payment registered on an invoice that is not open or overdue. */
  paymentOnUnpayableInvoice: (invoicenumber: string, status: string) => ({
    code: 'invalid_state',
    message: `A payment can only be registered on an open or overdue invoice; invoice ${invoicenumber} is ${status}`,
  }),
  /** A payment registered for more than the invoice's amount due. */
  overpayment: (amount: string, due: string, invoicenumber: string) => ({
    code: 'validation_failed',
    field: 'amount',
    message: `Overpayment: amount ${amount} exceeds the amount due ${due} on invoice ${invoicenumber}`,
  }),
  /** The partner's credit limit is in a currency with no rate to weigh this invoice against it. */
  creditLimitRateMissing: (limitCurrency: string, problem: string, today: string) => ({
    code: 'validation_failed',
    field: 'exchange_rate',
    message: `The credit limit is in ${limitCurrency}: ${problem}; set a rate on or before ${today} (/invoicing/exchangerates) or send override_credit_limit: true`,
  }),
  /** An invoice that would take the partner's exposure above its credit limit (the message has the figures). */
  creditLimitExceeded: (message: string) => ({ code: 'credit_limit_exceeded', message }),
  /** A credit note's sourceid that is no invoice id. */
  creditedInvoiceIdInvalid: (sourceid: string | null | undefined) => ({
    code: 'validation_failed',
    field: 'sourceid',
    message: `sourceid must be the id of the invoice this credit note credits; "${sourceid}" is no invoice id`,
  }),
  /** A credit note crediting an invoice the organization does not have. */
  creditedInvoiceNotFound: (invoiceId: number) => ({
    code: 'not_found',
    field: 'sourceid',
    message: `Invoice ${invoiceId} not found: a credit note credits an invoice of the organization`,
  }),
  /** A credit note that cannot credit the invoice it names (creditLinkProblem: its type, its partner). */
  creditNoteLinkRefused: (invoiceId: number, problem: { code: ErrorCode; message: string }) => ({
    code: problem.code,
    field: 'sourceid',
    message: `Credit note cannot credit invoice ${invoiceId}: ${problem.message}`,
  }),
  /** A credit note in another currency than the invoice it credits (creditNoteCurrency says how). */
  creditNoteCurrencyRefused: (problem: string) => ({ code: 'validation_failed', field: 'currency', message: `currency: ${problem}` }),
  /** A credit note that cannot be judged against its invoice, which other credit notes credit in another currency. */
  creditNoteCurrenciesMixed: (noteNumber: string, invoicenumber: string, currency: string | null, others: readonly string[]) => ({
    code: 'invalid_state',
    message:
      `Credit note ${noteNumber} cannot be judged against invoice ${invoicenumber} (${currency}): ` +
      `it is credited in another currency by ${others.join(', ')}`,
  }),
  /** A credit note that would credit its invoice beyond the invoice's total. */
  creditNoteExceedsInvoice: (
    noteNumber: string,
    noteTotal: string,
    invoicenumber: string,
    invoiceTotal: string,
    credited: string,
    left: string,
  ) => ({
    code: 'credit_exceeds_invoice',
    field: 'invoicetotal',
    message:
      `Credit note ${noteNumber} (${noteTotal}) would credit invoice ${invoicenumber} ` +
      `beyond its total ${invoiceTotal}: ` +
      `${credited} is credited already, ${left} is still creditable`,
  }),
  /** A credit note restocking more than was delivered and not yet returned (restockProblems), each line named. */
  restockRefused: (problems: FieldError[]) => ({
    code: 'validation_failed',
    message: problems.map((p) => p.message).join('; '),
    errors: problems,
  }),
  /** An e-invoice that cannot be rendered (EInvoiceRefused): its code, why, and the fields it misses. */
  eInvoiceRefused: (invoicenumber: string, body: { code: ErrorCode; errors?: FieldError[] | undefined }, message: string) =>
    body.errors
      ? { code: body.code, message: `Invoice ${invoicenumber}: ${message}`, errors: body.errors }
      : { code: body.code, message: `Invoice ${invoicenumber}: ${message}` },
});
