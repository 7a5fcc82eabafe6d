import { defineRefusals } from '@bo/runtime';

/** Every refusal of the quotation module, by name: what its handlers throw, and what its tests assert. */
export const quotationRefusals = defineRefusals('quotation', {
  /** No quotation of the organization by that id (another organization's is not found either). */
  quotationNotFound: (quotationId: number) => ({
    code: 'not_found',
    field: 'quotation_id',
    message: `Quotation ${quotationId} not found`,
  }),
  /** What the request asks is not allowed in the quotation's status (the state machine's verdict says why). */
  refusedInStatus: (quotationNumber: string, verdict: string) => ({
    code: 'invalid_state',
    message: `Quotation ${quotationNumber}: ${verdict}`,
  }),
  /** A valid_until before the quotation's date (the date as the request or the stored quotation gives it). */
  validUntilBeforeQuotationDate: (validUntil: string, quotationDate: string) => ({
    code: 'validation_failed',
    field: 'valid_until',
    message: `valid_until ${validUntil} is before the quotation date ${quotationDate}`,
  }),
  /** An exchange rate that does not go with the quotation's currency (exchangeRateProblem says how). */
  exchangeRateRefused: (problem: string) => ({ code: 'validation_failed', field: 'exchange_rate', message: problem }),
  /** A quotation number another quotation of the organization already has. */
  quotationNumberTaken: (quotationNumber: string | undefined) => ({
    code: 'duplicate',
    field: 'quotation_number',
    message: `Quotation number ${quotationNumber} already exists`,
  }),
  /** A line added whose own total reaches the most a line may total. */
  lineTotalTooLarge: (maxLineTotal: string) => ({
    code: 'validation_failed',
    field: 'quantity',
    message: `line total must be less than ${maxLineTotal}`,
  }),
  /** Lines of a new quotation whose own totals reach the most a line may total, each named. */
  lineItemTotalsTooLarge: (lineIndexes: number[], maxLineTotal: string) => {
    const errors = lineIndexes.map((i) => ({
      field: `line_items.${i}`,
      message: `line_items.${i} total must be less than ${maxLineTotal}`,
    }));
    return { code: 'validation_failed', message: `Invalid request: ${errors.map((e) => e.message).join('; ')}`, errors };
  },
  /** A new quotation whose lines add up to a total too large to store. */
  quotationTotalTooLarge: () => ({
    code: 'validation_failed',
    message: 'The quotation total is too large',
    errors: [{ field: 'line_items', message: 'line_items add up to a quotation total that is too large' }],
  }),
  /** A line that would make the quotation's total too large to store. */
  lineMakesTotalTooLarge: () => ({
    code: 'validation_failed',
    message: 'The quotation total would be too large',
    errors: [{ field: 'quantity', message: 'this line makes the quotation total too large' }],
  }),
  /** A line added to a quotation that already holds the most lines a quotation can. */
  tooManyLines: (quotationNumber: string, maxLines: number) => ({
    code: 'invalid_state',
    message: `Quotation ${quotationNumber} already has ${maxLines} lines, the most a quotation can hold`,
  }),
});
