// Reminders (dunning, docs/dunning.md): the organization's levels, runs that send the next level's
// letter of each overdue customer invoice once, and the letters sent. One path, `/invoicing/dunning`,
// one operation per `action`.
import { z } from 'zod';
import { defineEvent } from '../events';
import { baseRequest, booleanField, dateField, intId, money, pageRequest, paginationSchema, percentage, text } from '../fields';
import { defineOperation } from '../operation';

const DUNNING_PATH = '/invoicing/dunning';

export const dunningSkipReasons = ['disputed', 'partner_blocked', 'last_level_sent', 'not_yet_due'] as const;

export const dunningLevelInput = z.object({
  /** 1, 2, 3 …: numbered without gaps; a run sends the next level after the last one sent. */
  level: z.number().int().min(1).max(20),
  /** The level's letter is due this many days after the invoice's due date. */
  days_after_due: z.number().int().min(0).max(3650),
  /** A flat fee in the invoice's currency, 0 for none. */
  fee: money({ min: 0 }),
  /** Whether the letter charges statutory interest (Directive 2011/7/EU) at the organization's rate. */
  interest: booleanField,
  /** The letter's text. */
  text: text(2000, 'multiline'),
});

/**
 * The VAT a posted fee is invoiced with (docs/dunning.md "The fee's VAT"). A late-payment fee is
 * compensation, not the price of a supply: `E` with an exemption reason by default, which passes
 * EN 16931 beside the seller's VAT id; `O` only for an organization without a VAT id (BR-O-02); `S`
 * with its rate where the fee is taxed.
 */
export const feeTaxCategories = ['E', 'O', 'S'] as const;
export const feeTaxInput = z.object({
  category: z.enum(feeTaxCategories),
  /** Percent: above 0 for S, 0 for E and O. */
  rate: percentage(),
  /** BT-120, printed on the fee invoice; E and O need it or `exemption_code`, S takes neither. */
  exemption_reason: text(500).optional(),
  /** BT-121, a VATEX code of the category (`VATEX-EU-O` for O). */
  exemption_code: text(40).optional(),
});
export const feeTaxRecord = z.object({
  category: z.enum(feeTaxCategories),
  rate: z.number(),
  exemption_reason: z.string().nullable(),
  exemption_code: z.string().nullable(),
});

export const dunningLevelRecord = z.object({
  level: z.number().int(),
  days_after_due: z.number().int(),
  fee: z.number(),
  interest: z.boolean(),
  text: z.string(),
});

export const dunningLevelsRequest = z.object({
  ...baseRequest,
  action: z.literal('levels'),
  /** When given, replaces the organization's levels (an empty list: no reminders); absent, the levels are listed. */
  levels: z.array(dunningLevelInput).max(20).optional(),
  /** The reference rate of the statutory interest in percent per year (the ECB's main refinancing rate the organization applies); with `levels`. Absent: no interest is charged. */
  reference_rate: percentage().optional(),
  /** Percentage points above the reference rate, at least 8 (default 8); with `levels`. */
  points: percentage().optional(),
  /** true: each letter's fee above 0 becomes a validated customer invoice of its own, posted to the journal (default false). */
  post_fees: booleanField.optional(),
  /** The VAT of a posted fee; replaces the whole setting (default: E, 0 %, outside the scope of VAT). */
  fee_tax: feeTaxInput.optional(),
  /** The income account posted fees are credited to (default `4750 Reminder Fees`); not one the journal keeps for receivables, payables, VAT, rounding or the bank. */
  fee_account: text(100).optional(),
});
export const dunningLevelsReply = z.object({
  message: z.string(),
  levels: z.array(dunningLevelRecord),
  reference_rate: z.number().nullable(),
  points: z.number(),
  post_fees: z.boolean(),
  fee_tax: feeTaxRecord,
  fee_account: z.string(),
});

export const dunningLetterRecord = z.object({
  /** Null in a dry run: nothing is stored. */
  id: z.number().int().nullable(),
  invoice_id: z.number().int(),
  invoicenumber: z.string(),
  partner: z.number().int(),
  level: z.number().int(),
  /** The letter's date: the run's `as_of`. */
  as_of: z.string(),
  due_date: z.string(),
  currency: z.string(),
  /** What was still to pay on the letter's date. */
  due_amount: z.number(),
  days_overdue: z.number().int(),
  fee: z.number(),
  /** Percent per year (reference rate + points); null when the level charges no interest. */
  interest_rate: z.number().nullable(),
  /** Simple interest, actual/365, on due_amount from the due date to as_of, rounded once to the currency's minor unit. */
  interest: z.number(),
  total: z.number(),
  text: z.string(),
  /** The customer invoice the fee was posted as (`post_fees`); null when no fee was posted (none, post_fees off, a dry run). */
  fee_invoice_id: z.number().int().nullable(),
});

export const dunningRunRequest = z.object({
  ...baseRequest,
  action: z.literal('run'),
  /** The letters' date; default the organization's today. */
  as_of: dateField.optional(),
  /** Answer the letters the run would send, storing nothing. */
  dry_run: booleanField.optional(),
});
export const dunningRunReply = z.object({
  message: z.string(),
  as_of: z.string(),
  dry_run: z.boolean(),
  /** The letters this run sent (a letter another run sent already is not among them). */
  letters: z.array(dunningLetterRecord),
  skipped: z.array(z.object({ invoice_id: z.number().int(), reason: z.enum(dunningSkipReasons) })),
});

export const dunningListRequest = z.object({
  ...baseRequest,
  action: z.literal('list'),
  invoice_id: intId.optional(),
  partner: intId.optional(),
  level: z.number().int().min(1).max(20).optional(),
  ...pageRequest,
});
export const dunningListReply = z.object({ message: z.string(), letters: z.array(dunningLetterRecord), pagination: paginationSchema });

export const dunningLetterFormats = ['json', 'pdf'] as const;

export const dunningGetRequest = z.object({
  ...baseRequest,
  action: z.literal('get'),
  id: intId,
  /** `json` (default): the letter's record; `pdf`: the letter as the customer receives it. */
  format: z.enum(dunningLetterFormats).optional(),
});
export const dunningGetReply = z.object({ message: z.string(), letter: dunningLetterRecord.extend({ id: z.number().int() }) });
export const dunningLetterFileReply = z.object({
  message: z.string(),
  id: z.number().int(),
  format: z.literal('pdf'),
  filename: z.string(),
  content_type: z.literal('application/pdf'),
  content_base64: z.string(),
});

export const dunningDisputeRequest = z.object({
  ...baseRequest,
  action: z.literal('dispute'),
  /** A customer invoice. */
  invoice_id: intId,
  /** true: the customer contests it, and no run sends it a letter until it is false again. */
  disputed: booleanField,
  /** Why, kept with the flag while it is set (cleared with it). */
  reason: text(500, 'multiline').optional(),
});
export const dunningDisputeReply = z.object({
  message: z.string(),
  invoice_id: z.number().int(),
  invoicenumber: z.string(),
  disputed: z.boolean(),
  reason: z.string().nullable(),
  /** When the flag was set (UTC, YYYY-MM-DDTHH:MM:SS); null when cleared. */
  disputed_at: z.string().nullable(),
});

export const dunningLevels = defineOperation({
  name: 'invoicing.dunning.levels',
  service: 'invoicing',
  summary: "Set or list the organization's reminder levels and its statutory interest rate",
  paths: [DUNNING_PATH],
  select: { action: 'levels' },
  write: true,
  request: dunningLevelsRequest,
  reply: dunningLevelsReply,
  rules: [
    { field: 'levels', rule: 'numbered 1 to n without gaps, days_after_due strictly increasing from level to level' },
    { field: 'points', rule: 'at least 8 (Directive 2011/7/EU)' },
    {
      field: 'fee_tax',
      rule: "the category's EN 16931 rules: S a rate above 0 and no exemption; E and O a rate of 0 and an exemption_reason or exemption_code of the category",
    },
    {
      field: 'fee_account',
      rule: 'an income account: not blank, not one the journal keeps (1200 Accounts Receivable, 2000 Accounts Payable, 2200 Tax Payable, 1400 Tax Receivable, 7600 Rounding Differences, Bank)',
    },
  ],
});
export const dunningRun = defineOperation({
  name: 'invoicing.dunning.run',
  service: 'invoicing',
  summary: 'Send the next reminder level of each overdue customer invoice, once per invoice and level',
  paths: [DUNNING_PATH],
  select: { action: 'run' },
  write: true,
  request: dunningRunRequest,
  reply: dunningRunReply,
  rules: [
    {
      field: 'lock_date',
      rule: "with post_fees, as_of after the organization's lock_date: each fee invoice is posted on it, and a refusal of one refuses the run",
    },
  ],
});
export const dunningList = defineOperation({
  name: 'invoicing.dunning.list',
  service: 'invoicing',
  summary: 'List the reminder letters sent',
  paths: [DUNNING_PATH],
  select: { action: 'list' },
  write: false,
  request: dunningListRequest,
  reply: dunningListReply,
});

export const dunningGet = defineOperation({
  name: 'invoicing.dunning.get',
  service: 'invoicing',
  summary: 'One reminder letter, as its record or as the PDF the customer receives',
  paths: [DUNNING_PATH],
  select: { action: 'get' },
  write: false,
  request: dunningGetRequest,
  reply: z.union([dunningGetReply, dunningLetterFileReply]),
});
export const dunningDispute = defineOperation({
  name: 'invoicing.dunning.dispute',
  service: 'invoicing',
  summary: 'Mark a customer invoice disputed (no reminders while it is) or clear the mark',
  paths: [DUNNING_PATH],
  select: { action: 'dispute' },
  write: true,
  request: dunningDisputeRequest,
  reply: dunningDisputeReply,
  rules: [{ field: 'invoice_id', rule: 'a customer invoice (invoiceout) of the organization' }],
});

export const dunningSent = defineEvent({
  type: 'invoicing.dunning.sent',
  summary: 'A reminder letter of a level was sent for an overdue customer invoice',
  data: dunningLetterRecord.extend({ id: z.number().int() }),
});

export const dunningOperations = [dunningLevels, dunningRun, dunningList, dunningGet, dunningDispute];
export const dunningEvents = [dunningSent];

export type DunningLetterRecord = z.infer<typeof dunningLetterRecord>;
export type DunningLevelRecord = z.infer<typeof dunningLevelRecord>;
export type FeeTaxRecord = z.infer<typeof feeTaxRecord>;
