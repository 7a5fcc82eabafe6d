// Bank statements in and reconciliation, vendor payment files out (docs/bank.md). One path,
// `/invoicing/bank`, one operation per `action`.
import { z } from 'zod';
import {
  atMost,
  baseRequest,
  booleanField,
  cashAmount,
  dateField,
  intId,
  plainString,
  optionalText,
  pageRequest,
  paginationSchema,
  text,
} from '../fields';
import { defineOperation } from '../operation';
import { currencyField } from '../organization/schemas';
import { allocationInput } from './payments';

const BANK_PATH = '/invoicing/bank';

export const bankStatementFormats = ['camt053', 'mt940', 'csv'] as const;
export const bankLineStatuses = ['unmatched', 'suggested', 'reconciled', 'ignored'] as const;
export type BankLineStatus = (typeof bankLineStatuses)[number];

const ibanText = text(40);
const accountName = text(100);

/** Which CSV column holds what (by header name, or 1-based position with `header: false`), and how numbers and dates are written. */
export const csvMappingInput = z.object({
  date: text(100),
  amount: optionalText(100),
  debit: optionalText(100),
  credit: optionalText(100),
  text: optionalText(100),
  reference: optionalText(100),
  counterparty_name: optionalText(100),
  counterparty_iban: optionalText(100),
  bank_reference: optionalText(100),
  value_date: optionalText(100),
  delimiter: optionalText(1),
  decimal_separator: z.enum(['.', ',']).optional(),
  /** Built of YYYY, MM, DD and separators; default YYYY-MM-DD. */
  date_format: optionalText(20),
  header: booleanField.optional(),
});

export const importStatementRequest = z.object({
  ...baseRequest,
  action: z.literal('import_statement'),
  /** The file, base64; at most 10 MB decoded. */
  content_base64: plainString('multiline').check(atMost(14_000_000)),
  format: z.enum(bankStatementFormats),
  /** The organization's bank account the statement is of: its IBAN (the organization profile's `iban`). */
  journal: ibanText,
  /** Required for `csv`: which column holds what. */
  mapping: csvMappingInput.optional(),
  /** For `csv`, which carries none: the statement's id (default: a digest of the file) ... */
  statement_id: optionalText(100),
  /** ... and its currency (default the organization's accounting currency). */
  currency: currencyField.optional(),
  /** Reconcile exact structured references at once; default the organization's `bank_autoreconcile` (`action: "settings"`). */
  autoreconcile: booleanField.optional(),
});

export const bankStatementRecord = z.object({
  id: z.number().int(),
  journal: z.string(),
  iban: z.string(),
  statement_id: z.string(),
  sequence: z.string().nullable(),
  format: z.enum(bankStatementFormats),
  currency: z.string(),
  opening_balance: z.number(),
  closing_balance: z.number(),
  statement_date: z.string().nullable(),
  line_count: z.number().int(),
  created_at: z.string(),
});

export const importStatementReply = z.object({
  message: z.string(),
  statement: bankStatementRecord,
  /** Lines stored, lines skipped because an earlier line had the same natural key, and what became of the stored ones. */
  lines: z.number().int(),
  duplicate_lines: z.number().int(),
  reconciled: z.number().int(),
  suggested: z.number().int(),
  unmatched: z.number().int(),
});

export const listStatementsRequest = z.object({
  ...baseRequest,
  action: z.literal('statements'),
  journal: ibanText.optional(),
  ...pageRequest,
});
export const listStatementsReply = z.object({
  message: z.string(),
  statements: z.array(bankStatementRecord),
  pagination: paginationSchema,
});

export const bankLineRecord = z.object({
  id: z.number().int(),
  statement: z.number().int(),
  amount: z.number(),
  currency: z.string(),
  booking_date: z.string(),
  value_date: z.string().nullable(),
  bank_reference: z.string().nullable(),
  end_to_end_id: z.string().nullable(),
  structured_reference: z.string().nullable(),
  remittance_text: z.string().nullable(),
  counterparty_name: z.string().nullable(),
  counterparty_iban: z.string().nullable(),
  status: z.enum(bankLineStatuses),
  /** What reconciled it: the payment made or linked, the journal entry of an account or fee posting. */
  payment_id: z.number().int().nullable(),
  journal_entry_id: z.number().int().nullable(),
});

export const listLinesRequest = z.object({
  ...baseRequest,
  action: z.literal('lines'),
  statement: intId.optional(),
  status: z.enum(bankLineStatuses).optional(),
  ...pageRequest,
});
export const listLinesReply = z.object({ message: z.string(), lines: z.array(bankLineRecord), pagination: paginationSchema });

export const suggestRequest = z.object({ ...baseRequest, action: z.literal('suggest'), line_id: intId });
export const candidateRecord = z.object({
  invoice_id: z.number().int().nullable(),
  invoicenumber: z.string().nullable(),
  partner: z.number().int().nullable(),
  /** A rule's account, when the candidate is a rule posting to an account. */
  account: z.string().nullable(),
  amount_due: z.number().nullable(),
  /** 0 to 100: the sum of the reasons' weights, capped. */
  score: z.number().int(),
  reasons: z.array(z.enum(['reference', 'amount', 'partner_iban', 'invoice_number', 'rule'])),
});
export const suggestReply = z.object({ message: z.string(), line: bankLineRecord, candidates: z.array(candidateRecord) });

export const reconcileRequest = z.object({
  ...baseRequest,
  action: z.literal('reconcile'),
  line_id: intId,
  /** Make a payment of the line's money and allocate it to these documents (customer invoices for money in, vendor bills for money out) ... */
  allocations: z.array(allocationInput).min(1).max(100).optional(),
  /** ... the partner when no allocation names it (the whole payment then is the partner's credit) ... */
  partner: intId.optional(),
  /** ... or match a posted payment already recorded ... */
  payment_id: intId.optional(),
  /** ... or post the whole line to an account (bank fees, interest, other). */
  account: accountName.optional(),
  /** Bank fees or a difference kept out of the payment: posted to `fee_account`, the payment's amount the line's plus the fee (money in) or less it (money out). */
  fee: cashAmount({ positive: true }).optional(),
  fee_account: accountName.optional(),
});
export const reconcileReply = z.object({ message: z.string(), line: bankLineRecord });

export const unreconcileRequest = z.object({ ...baseRequest, action: z.literal('unreconcile'), line_id: intId });
export const ignoreRequest = z.object({ ...baseRequest, action: z.literal('ignore'), line_id: intId });

export const bankRuleRecord = z.object({
  id: z.number().int(),
  name: z.string(),
  match_text: z.string().nullable(),
  match_iban: z.string().nullable(),
  partner: z.number().int().nullable(),
  account: z.string().nullable(),
});
export const rulesRequest = z.object({
  ...baseRequest,
  action: z.literal('rules'),
  /** `list` (default), `create` (name, match_text and/or match_iban, partner and/or account) or `delete` (rule_id). */
  rule_action: z.enum(['list', 'create', 'delete']).optional(),
  rule_id: intId.optional(),
  name: optionalText(100),
  /** Case-insensitive text the line's remittance text or counterparty name contains. */
  match_text: optionalText(200),
  match_iban: ibanText.optional(),
  partner: intId.optional(),
  account: accountName.optional(),
});
export const rulesReply = z.object({ message: z.string(), rules: z.array(bankRuleRecord) });

export const importStatement = defineOperation({
  name: 'invoicing.bank.import_statement',
  service: 'invoicing',
  summary: 'Import a bank statement (camt.053, MT940 or CSV) and reconcile what its references name',
  paths: [BANK_PATH],
  select: { action: 'import_statement' },
  write: true,
  request: importStatementRequest,
  reply: importStatementReply,
  // 10 MB of statement is 14 MB of base64 (content_base64's bound), a CSV mapping and the other fields.
  maxBodyBytes: 14_100_000,
  rules: [
    {
      field: 'content_base64',
      rule: 'a readable statement of the format (bounded: 10 MB, 20,000 lines; XML without DTD or entities) whose opening balance is the closing balance of the previous statement of the account (the gap is named)',
    },
    { field: 'journal', rule: "the organization profile's iban, and the statement's account when the file names one" },
    { field: 'mapping', rule: 'required for csv: date, and amount or debit and credit' },
    { field: 'statement_id', rule: 'not imported before for the account (409 duplicate_statement)' },
  ],
});
export const listStatements = defineOperation({
  name: 'invoicing.bank.statements',
  service: 'invoicing',
  summary: 'List imported bank statements',
  paths: [BANK_PATH],
  select: { action: 'statements' },
  write: false,
  request: listStatementsRequest,
  reply: listStatementsReply,
});
export const listBankLines = defineOperation({
  name: 'invoicing.bank.lines',
  service: 'invoicing',
  summary: 'List bank statement lines by status',
  paths: [BANK_PATH],
  select: { action: 'lines' },
  write: false,
  request: listLinesRequest,
  reply: listLinesReply,
});
export const suggestBankLine = defineOperation({
  name: 'invoicing.bank.suggest',
  service: 'invoicing',
  summary: "A bank line's candidate invoices and rules, each with a score and its reasons",
  paths: [BANK_PATH],
  select: { action: 'suggest' },
  write: false,
  request: suggestRequest,
  reply: suggestReply,
});
export const reconcileBankLine = defineOperation({
  name: 'invoicing.bank.reconcile',
  service: 'invoicing',
  summary: 'Reconcile a bank line: a payment with allocations, an existing payment, or an account',
  paths: [BANK_PATH],
  select: { action: 'reconcile' },
  write: true,
  request: reconcileRequest,
  reply: reconcileReply,
  rules: [
    { field: 'line_id', rule: 'a line neither reconciled nor ignored' },
    {
      field: 'allocations',
      rule: 'exactly one of allocations, partner, payment_id or account; documents of one partner, of the side the money moved',
    },
    { field: 'payment_id', rule: 'a posted payment of the direction and amount of the line, not reconciled with another line' },
    { field: 'fee_account', rule: 'required with fee' },
    { field: 'fee', rule: 'only with allocations or partner: a reconciliation with payment_id or account takes no fee' },
  ],
});
export const unreconcileBankLine = defineOperation({
  name: 'invoicing.bank.unreconcile',
  service: 'invoicing',
  summary: 'Undo a reconciliation: void what it posted',
  paths: [BANK_PATH],
  select: { action: 'unreconcile' },
  write: true,
  request: unreconcileRequest,
  reply: reconcileReply,
  rules: [{ field: 'line_id', rule: 'a reconciled or ignored line' }],
});
export const ignoreBankLine = defineOperation({
  name: 'invoicing.bank.ignore',
  service: 'invoicing',
  summary: 'Set a bank line aside: nothing is posted for it',
  paths: [BANK_PATH],
  select: { action: 'ignore' },
  write: true,
  request: ignoreRequest,
  reply: reconcileReply,
  rules: [{ field: 'line_id', rule: 'a line not reconciled' }],
});
export const bankRules = defineOperation({
  name: 'invoicing.bank.rules',
  service: 'invoicing',
  summary: 'Create, list or delete bank matching rules (text or IBAN to partner and/or account)',
  paths: [BANK_PATH],
  select: { action: 'rules' },
  write: true,
  request: rulesRequest,
  reply: rulesReply,
  rules: [
    { field: 'match_text', rule: 'on create: match_text or match_iban' },
    { field: 'partner', rule: 'on create: partner or account' },
    { field: 'rule_id', rule: 'on delete: a rule of the organization' },
  ],
});

export const paymentFileRequest = z.object({
  ...baseRequest,
  action: z.literal('payment_file'),
  /** The open vendor bills to pay, each for what it still owes ... */
  bills: z.array(intId).min(1).max(500).optional(),
  /** ... or every open EUR vendor bill due by this day not already in a payment file (none: no file, a reply without one). */
  due_by: dateField.optional(),
  /** The day the bank is to execute the transfers; default the organization's today. */
  execution_date: dateField.optional(),
});
export const paymentFileBillRecord = z.object({
  invoice_id: z.number().int(),
  invoicenumber: z.string(),
  partner: z.number().int(),
  amount: z.number(),
  creditor_iban: z.string(),
  /** The transfer's end-to-end id: the bank states it on the debit line, which then reconciles against the bill on import. */
  end_to_end_id: z.string(),
  /** `in_payment` until the statement line that debits it is reconciled, then `paid`. */
  status: z.enum(['in_payment', 'paid']),
});
export const paymentFileReply = z.object({
  message: z.string(),
  payment_file: z
    .object({
      id: z.number().int(),
      message_id: z.string(),
      execution_date: z.string(),
      debtor_iban: z.string(),
      currency: z.string(),
      transfers: z.number().int(),
      total: z.number(),
    })
    .nullable(),
  bills: z.array(paymentFileBillRecord),
  /** The ISO 20022 pain.001.001.09 credit-transfer file (EPC SEPA profile), base64, to upload to the bank. */
  content_base64: z.string().nullable(),
});

export const paymentFile = defineOperation({
  name: 'invoicing.bank.payment_file',
  service: 'invoicing',
  summary: 'Pay vendor bills: a SEPA credit-transfer file (pain.001.001.09) for the bills chosen, which are then in payment',
  paths: [BANK_PATH],
  select: { action: 'payment_file' },
  write: true,
  request: paymentFileRequest,
  reply: paymentFileReply,
  rules: [
    {
      field: 'bills',
      rule: "bills or due_by; open vendor bills in EUR with something to pay, not in another payment file, each partner's bank_accounts holding an IBAN",
    },
    { field: 'due_by', rule: "the bills due by it as for bills; the organization profile's iban set" },
  ],
});

export const bankSettingsRequest = z.object({
  ...baseRequest,
  action: z.literal('settings'),
  /** Reconcile on import a line whose structured reference names an open document of the right partner, owing at least the line (else it is only suggested). Absent: unchanged. */
  bank_autoreconcile: booleanField.optional(),
});
export const bankSettingsReply = z.object({
  message: z.string(),
  settings: z.object({ bank_autoreconcile: z.boolean() }),
});

export const bankSettings = defineOperation({
  name: 'invoicing.bank.settings',
  service: 'invoicing',
  summary: "The organization's settings for bank statements; the given ones are changed",
  paths: [BANK_PATH],
  select: { action: 'settings' },
  write: true,
  request: bankSettingsRequest,
  reply: bankSettingsReply,
  rules: [
    {
      field: 'bank_autoreconcile',
      rule: "default true. When true, import_statement reconciles a line whose structured reference (ISO 11649) names exactly one open document of the side its money moved, in its currency, owing at least its amount, whose payer's IBAN is not another partner's; when false such a line is only suggested. An import's own autoreconcile overrides it for that import",
    },
  ],
});

export const bankOperations = [
  importStatement,
  listStatements,
  listBankLines,
  suggestBankLine,
  reconcileBankLine,
  unreconcileBankLine,
  ignoreBankLine,
  bankRules,
  paymentFile,
  bankSettings,
];

export type BankStatementRecord = z.infer<typeof bankStatementRecord>;
export type BankLineRecord = z.infer<typeof bankLineRecord>;
export type CandidateRecord = z.infer<typeof candidateRecord>;
export type PaymentFileBillRecord = z.infer<typeof paymentFileBillRecord>;
export type ImportStatementRequest = z.infer<typeof importStatementRequest>;
export type RulesReply = z.infer<typeof rulesReply>;
