import { defineRefusals } from '@bo/runtime';

const CONTENT = 'content_base64';
const content = (message: string) => ({ code: 'validation_failed', field: CONTENT, message }) as const;

/** Every refusal of the bank module (statements, lines, rules, payment files), by name. */
export const bankRefusals = defineRefusals('bank', {
  /** No bank line of the organization by that id. */
  bankLineNotFound: (lineId: number) => ({ code: 'not_found', message: `Bank line ${lineId} not found` }),
  /** No matching rule of the organization by that id. */
  ruleNotFound: (ruleId: number) => ({ code: 'not_found', message: `Rule ${ruleId} not found` }),
  /** A rule created with nothing to match a line by. */
  ruleMatchRequired: () => ({ code: 'validation_failed', field: 'match_text', message: 'match_text or match_iban is required' }),
  /** A rule created with nothing to suggest for the lines it matches. */
  ruleTargetRequired: () => ({ code: 'validation_failed', field: 'partner', message: 'partner or account is required' }),
  /** A delete of a rule that names none. */
  ruleIdRequired: () => ({
    code: 'validation_failed',
    message: 'rule_id is required',
    errors: [{ field: 'rule_id', message: 'required to delete' }],
  }),
  /** A statement's content that is not base64. */
  contentNotBase64: () => content(`${CONTENT}: not base64`),
  /** A statement file the parser refuses (its message says why). */
  statementUnreadable: (problem: string) => content(`${CONTENT}: ${problem}`),
  /** A file holding more or fewer statements than one. */
  notOneStatement: (count: number) => content(`the file holds ${count} statements; import one at a time`),
  /** A statement whose opening balance is not where the account's previous statement closed. */
  openingBalanceGap: (opening: string, previousStatementId: string, iban: string, closing: string, gap: string) =>
    content(
      `The statement opens at ${opening} but the previous statement ${previousStatementId} of ${iban} closed at ${closing}: a gap of ${gap} (a statement missing between them?)`,
    ),
  /** A statement imported into a journal other than the organization's bank account (or with no account in the profile). */
  journalNotOrganizationAccount: (journal: string, iban: string | null) => {
    const message = iban ? `must be the organization's bank account ${iban}` : 'the organization profile has no iban: set it first';
    return { code: 'validation_failed', message: `journal ${journal}: ${message}`, errors: [{ field: 'journal', message }] };
  },
  /** A statement of another account than the organization's. */
  statementOfOtherAccount: (statementIban: string, iban: string) => ({
    code: 'validation_failed',
    message: `The statement is of account ${statementIban}, not ${iban}`,
    errors: [{ field: 'journal', message: `the statement is of ${statementIban}` }],
  }),
  /** A CSV statement imported without its column mapping. */
  csvMappingRequired: () => ({
    code: 'validation_failed',
    message: 'mapping is required for csv',
    errors: [{ field: 'mapping', message: 'required for csv' }],
  }),
  /** A CSV statement without a currency, in an organization without an accounting currency to take. */
  csvCurrencyRequired: () => ({
    code: 'validation_failed',
    message: 'currency is required: the organization has no accounting currency',
    errors: [{ field: 'currency', message: 'required' }],
  }),
  /** A reconcile naming no way, or more than one, to reconcile the line. */
  oneReconcileChoiceRequired: () => ({
    code: 'validation_failed',
    field: 'allocations',
    message: 'give exactly one of allocations, partner, payment_id or account',
  }),
  /** A bank fee without the account it is posted to. */
  feeAccountRequired: () => ({ code: 'validation_failed', field: 'fee_account', message: 'required with fee' }),
  /** A bank fee on a reconcile that makes no payment. */
  feeWithoutPayment: () => ({ code: 'validation_failed', field: 'fee', message: 'only with allocations or partner' }),
  /** Allocations naming no document of the organization. */
  allocationsOfNoDocument: () => ({ code: 'validation_failed', field: 'allocations', message: 'must name documents of the organization' }),
  /** Allocations naming documents of more than one partner. */
  allocationsOfSeveralPartners: () => ({ code: 'validation_failed', field: 'allocations', message: 'must name documents of one partner' }),
  /** A reconcile of a line already reconciled. */
  lineAlreadyReconciled: (lineId: number) => ({ code: 'invalid_state', message: `Bank line ${lineId} is already reconciled` }),
  /** A reconcile of a line set aside. */
  lineIgnored: (lineId: number) => ({ code: 'invalid_state', message: `Bank line ${lineId} is ignored; unreconcile it first` }),
  /** An ignore of a line that is reconciled. */
  reconciledLineIgnored: (lineId: number) => ({
    code: 'invalid_state',
    message: `Bank line ${lineId} is reconciled; unreconcile it first`,
  }),
  /** An unreconcile of a line that is not reconciled. */
  lineNotReconciled: (lineId: number) => ({ code: 'invalid_state', message: `Bank line ${lineId} is not reconciled` }),
  /** A bank fee as large as the line, leaving nothing to pay. */
  feeLeavesNoPayment: (fee: string, lineId: number) => ({
    code: 'validation_failed',
    message: `The fee ${fee} leaves no payment of line ${lineId}`,
    errors: [{ field: 'fee', message: 'must be less than the line amount' }],
  }),
  /** A line posted to an account while it is not in the accounting currency. */
  lineNotInAccountingCurrency: (lineId: number, currency: string, accounting: string, field: string) => ({
    code: 'validation_failed',
    message: `Line ${lineId} is in ${currency}; an account posting takes lines in the accounting currency ${accounting}`,
    errors: [{ field, message: `the line is in ${currency}, not the accounting currency ${accounting}` }],
  }),
  /** A line reconciled with a payment that is not posted. */
  paymentNotPosted: (paymentId: number, status: string) => ({ code: 'invalid_state', message: `Payment ${paymentId} is ${status}` }),
  /** A line reconciled with a payment of another direction, amount or currency. */
  paymentDoesNotMatchLine: (paymentId: number, direction: string, amount: string, currency: string) => ({
    code: 'validation_failed',
    message: `Payment ${paymentId} is not ${direction} ${amount} ${currency}`,
    errors: [{ field: 'payment_id', message: `must be a posted payment ${direction} of ${amount} ${currency}` }],
  }),
  /** A line reconciled with a payment another line is reconciled with. */
  paymentAlreadyReconciled: (paymentId: number, lineId: string) => ({
    code: 'invalid_state',
    message: `Payment ${paymentId} is already reconciled with bank line ${lineId}`,
  }),
  /** A payment file asked with both, or neither, of bills and due_by. */
  billsOrDueByRequired: () => ({ code: 'validation_failed', field: 'bills', message: 'give bills or due_by' }),
  /** A payment file of an organization whose profile has no IBAN to pay from. */
  noOrganizationIban: (field: string) => ({
    code: 'validation_failed',
    field,
    message: 'the organization profile has no iban: set it first',
  }),
  /** Bills that cannot go in a payment file (not found, not a vendor bill, not open, not EUR, already in one, no vendor IBAN). */
  billsNotPayable: (field: string, problems: readonly string[]) => ({ code: 'validation_failed', field, message: problems.join('; ') }),
});
