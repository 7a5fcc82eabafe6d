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
});
export const dunningLevelsReply = z.object({
  message: z.string(),
  levels: z.array(dunningLevelRecord),
  reference_rate: z.number().nullable(),
  points: z.number(),
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
