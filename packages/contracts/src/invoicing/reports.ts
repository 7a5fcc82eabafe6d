import { VAT_CATEGORIES } from '@bo/kernel';
import { z } from 'zod';
import { baseRequest, dateField, intId } from '../fields';
import { defineOperation, HEAVY_COST } from '../operation';
import { ledgerSides } from './payments';

/**
 * The books' reports (docs/invoicing.md, "VAT report", "Aged balances", "Statements"): one
 * operation, the report picked by `report`, each with its own fields and reply, each read from the
 * books so it agrees with the journal.
 */
export const reportNames = ['vat', 'aged_receivables', 'aged_payables', 'statement', 'bank_reconciliation'] as const;
export type ReportName = (typeof reportNames)[number];

/** The most a report's period may span: ten years, inclusive of both ends. */
export const MAX_REPORT_YEARS = 10;

/** The organization's local dates, both inclusive. */
const period = { date_from: dateField, date_to: dateField };

export const vatReportRequest = z.object({ ...baseRequest, report: z.literal('vat'), ...period });

export const agedReportNames = ['aged_receivables', 'aged_payables'] as const;
export type AgedReportName = (typeof agedReportNames)[number];

export const agedReportRequest = z.object({
  ...baseRequest,
  /** `aged_receivables`: what customers owe; `aged_payables`: what is owed to vendors. */
  report: z.enum(agedReportNames),
  /** The day the books are read as of (the organization's local date); default the organization's today. */
  as_of: dateField.optional(),
});

export const statementFormats = ['pdf'] as const;
/** The side of a partner's account a statement shows: what it owes (`customer`) or what is owed to it (`vendor`). */
export const statementSides = ledgerSides;
export type StatementSide = (typeof statementSides)[number];

export const statementReportRequest = z.object({
  ...baseRequest,
  report: z.literal('statement'),
  /** The partner the statement is of. */
  partner: intId,
  /**
   * `customer` (the default): its receivable, what it owes (invoices, credit notes, money from it);
   * `vendor`: what is owed to it (bills, its credit notes, money to it).
   */
  side: z.enum(statementSides).optional(),
  ...period,
  /** `pdf`: the statement as a PDF file instead of JSON. */
  format: z.enum(statementFormats).optional(),
});

export const bankReconciliationReportRequest = z.object({
  ...baseRequest,
  report: z.literal('bank_reconciliation'),
  /** The day the bank accounts are compared as of (the organization's local date); default the organization's today. */
  as_of: dateField.optional(),
});

export const runReportRequest = z.discriminatedUnion('report', [
  vatReportRequest,
  agedReportRequest,
  statementReportRequest,
  bankReconciliationReportRequest,
]);
export type VatReportRequest = z.output<typeof vatReportRequest>;
export type AgedReportRequest = z.output<typeof agedReportRequest>;
export type StatementReportRequest = z.output<typeof statementReportRequest>;
export type BankReconciliationReportRequest = z.output<typeof bankReconciliationReportRequest>;

export const vatDirections = ['sales', 'purchases'] as const;

export const vatReportRow = z.object({
  /** `sales` (invoiceout, creditout: output VAT) or `purchases` (invoicein, creditin: input VAT). */
  direction: z.enum(vatDirections),
  /** EN 16931 VAT category; null for tax posted before categories whose document had several rates. */
  tax_category: z.enum(VAT_CATEGORIES).nullable(),
  tax_rate: z.number().nullable(),
  /** The taxable amount (credit notes negative), in the accounting currency. */
  base: z.number(),
  /** The VAT (credit notes negative), in the accounting currency. */
  tax: z.number(),
});
export type VatReportRow = z.infer<typeof vatReportRow>;

export const vatReportReply = z.object({
  message: z.string(),
  report: z.literal('vat'),
  date_from: z.string(),
  date_to: z.string(),
  /** The accounting currency every figure is in (the organization's default_currency); null when invoicing has none on record. */
  currency: z.string().nullable(),
  rows: z.array(vatReportRow),
  totals: z.object({
    /** The output VAT account's movement over the period (credits − debits). */
    output_tax: z.number(),
    /** The input VAT account's movement over the period (debits − credits). */
    input_tax: z.number(),
    /** output_tax − input_tax. */
    net_payable: z.number(),
  }),
});
export type VatReportReply = z.infer<typeof vatReportReply>;

export const agingBuckets = ['current', '1_30', '31_60', '61_90', 'over_90'] as const;
export type AgingBucket = (typeof agingBuckets)[number];

/** The five buckets, `unallocated_credit` and `total` (= the buckets less the credit), in the accounting currency. */
const agedFigures = {
  /** Not yet due on `as_of` (due that day or later). */
  current: z.number(),
  /** 1 to 30 days past due. */
  '1_30': z.number(),
  '31_60': z.number(),
  '61_90': z.number(),
  over_90: z.number(),
  /** What the partner has paid or been credited and not yet allocated nor refunded (payments, credit notes). */
  unallocated_credit: z.number(),
  /** The partner's balance on the side reported: Σ buckets − unallocated_credit. */
  total: z.number(),
};

export const agedOpenDocument = z.object({
  invoice_id: z.number().int(),
  invoicenumber: z.string(),
  /** The document's date (its journal entry's). */
  date: z.string(),
  /** `invoicedue`, or the document's date when it has none. */
  due_date: z.string(),
  /** Days past due on `as_of`; 0 or less is not yet due. */
  days_past_due: z.number().int(),
  bucket: z.enum(agingBuckets),
  /** The document's currency, and what was open on it that day in that currency. */
  currency: z.string().nullable(),
  open_amount_currency: z.number(),
  /** The same in the accounting currency, at the rate the document was posted at. */
  open_amount: z.number(),
});

export const agedCredit = z.object({
  source: z.enum(['payment', 'credit_note']),
  payment_id: z.number().int().nullable(),
  credit_note_id: z.number().int().nullable(),
  /** The credit note's number, the payment's reference (or `PAY-<id>`). */
  reference: z.string(),
  date: z.string(),
  currency: z.string().nullable(),
  unallocated_currency: z.number(),
  unallocated: z.number(),
});

export const agedPartnerRow = z.object({
  partner: z.number().int(),
  partnername: z.string().nullable(),
  ...agedFigures,
  documents: z.array(agedOpenDocument),
  credits: z.array(agedCredit),
});

export const agedReportReply = z.object({
  message: z.string(),
  report: z.enum(agedReportNames),
  as_of: z.string(),
  /** The accounting currency every figure but the `…_currency` ones is in; null when invoicing has none on record. */
  currency: z.string().nullable(),
  /** Partners with anything open or any credit on `as_of`, by id. */
  partners: z.array(agedPartnerRow),
  totals: z.object(agedFigures),
});
export type AgedReportReply = z.infer<typeof agedReportReply>;
export type AgedPartnerRow = z.infer<typeof agedPartnerRow>;

export const statementLineKinds = [
  'invoice',
  'credit_note',
  'payment',
  'allocation',
  'refund',
  'void',
  'write_off',
  'exchange_difference',
] as const;

export const statementLine = z.object({
  date: z.string(),
  kind: z.enum(statementLineKinds),
  /**
   * The document number, `PAY-<id>` with its reference, or for an allocation `<source> → <document>`;
   * an `exchange_difference` (the gain or loss realized by the line before it) names what realized it.
   */
  reference: z.string(),
  invoice_id: z.number().int().nullable(),
  payment_id: z.number().int().nullable(),
  credit_note_id: z.number().int().nullable(),
  currency: z.string().nullable(),
  /**
   * The amount of the movement in its own currency (an allocation: the amount applied; an
   * `exchange_difference`: the difference itself, in the accounting currency).
   */
  amount_currency: z.number(),
  /**
   * In the accounting currency, as the partner's trade account posts it: on the customer side
   * (receivable) a debit adds to the balance (an invoice, a refund, a void) and a credit takes off it
   * (a credit note, a payment, a write-off); on the vendor side (payable) a credit adds to it (a bill,
   * a refund, a void) and a debit takes off it (a credit note, a payment). An allocation is neither;
   * an `exchange_difference` is what the cash line before it was worth beyond (or short of) what it
   * cleared on the trade account.
   */
  debit: z.number(),
  credit: z.number(),
  /** The balance after this line. */
  balance: z.number(),
});
export type StatementLine = z.infer<typeof statementLine>;

export const statementReportReply = z.object({
  message: z.string(),
  report: z.literal('statement'),
  partner: z.number().int(),
  partnername: z.string().nullable(),
  side: z.enum(statementSides),
  date_from: z.string(),
  date_to: z.string(),
  /** The accounting currency of `opening_balance`, `debit`, `credit`, `balance` and `closing_balance`. */
  currency: z.string().nullable(),
  /**
   * What the customer owed, or what was owed to the vendor, at the end of the day before `date_from`
   * (negative: its credit with the organization, or the organization's with the vendor).
   */
  opening_balance: z.number(),
  lines: z.array(statementLine),
  /** The same at the end of `date_to`: the partner's `total` in aged receivables (or payables) as of that day. */
  closing_balance: z.number(),
});
export type StatementReportReply = z.infer<typeof statementReportReply>;

/** The statement as a file (`format: "pdf"`), answered like the documents operations. */
export const statementFileReply = z.object({
  message: z.string(),
  report: z.literal('statement'),
  partner: z.number().int(),
  side: z.enum(statementSides),
  format: z.enum(statementFormats),
  filename: z.string(),
  content_type: z.literal('application/pdf'),
  content_base64: z.string(),
});
export type StatementFileReply = z.infer<typeof statementFileReply>;

/** A statement line not reconciled (nor set aside): what the books do not hold yet. */
export const bankOpenLine = z.object({
  id: z.number().int(),
  statement: z.number().int(),
  booking_date: z.string(),
  amount: z.number(),
  currency: z.string(),
  status: z.enum(['unmatched', 'suggested']),
  counterparty_name: z.string().nullable(),
  remittance_text: z.string().nullable(),
});

export const bankReconciliationAccount = z.object({
  /** The journal the account books on, and the bank account (IBAN) its statements are of. */
  journal: z.string(),
  iban: z.string(),
  /** The statements' currency, and the accounting currency the journal's account is kept in. */
  currency: z.string(),
  book_currency: z.string().nullable(),
  /** The last statement imported dated on or before `as_of`. */
  statement: z.object({ id: z.number().int(), statement_id: z.string(), statement_date: z.string().nullable() }),
  /** What the account held before its first imported statement: the books start from it. */
  opening_balance: z.number(),
  /** The statement's closing balance. */
  statement_balance: z.number(),
  /** The journal's account (debits less credits) dated on or before `as_of`. */
  book_balance: z.number(),
  /** statement_balance − opening_balance − book_balance; null when the currencies differ. */
  difference: z.number().nullable(),
  /** The lines of that statement and the ones before it neither reconciled nor ignored, by id, and their sum. */
  open_lines: z.array(bankOpenLine),
  open_total: z.number(),
  /** The lines set aside (`ignore`): on the statement, never in the books. */
  ignored_total: z.number(),
  /** difference − open_total − ignored_total: what no line explains (a payment by hand through the journal, say); null when the currencies differ. */
  unexplained: z.number().nullable(),
});

export const bankReconciliationReportReply = z.object({
  message: z.string(),
  report: z.literal('bank_reconciliation'),
  as_of: z.string(),
  /** Each bank account with a statement dated on or before `as_of`, by IBAN. */
  accounts: z.array(bankReconciliationAccount),
});
export type BankReconciliationReportReply = z.infer<typeof bankReconciliationReportReply>;
export type BankReconciliationAccount = z.infer<typeof bankReconciliationAccount>;
export type BankOpenLine = z.infer<typeof bankOpenLine>;

export const runReportReply = z.union([
  vatReportReply,
  agedReportReply,
  statementReportReply,
  statementFileReply,
  bankReconciliationReportReply,
]);
export type RunReportReply = z.infer<typeof runReportReply>;

export const runReport = defineOperation({
  name: 'invoicing.report.run',
  service: 'invoicing',
  summary:
    "A report of the books: `vat` (the VAT return of a period), `aged_receivables` and `aged_payables` (open balances by age as of a day), `statement` (a partner's statement of a period, of its customer or vendor side, JSON or PDF), `bank_reconciliation` (each bank account's statement balance against its journal account as of a day, and the lines not reconciled)",
  paths: ['/invoicing/reports'],
  select: { default: true },
  write: false,
  cost: HEAVY_COST,
  request: runReportRequest,
  reply: runReportReply,
  rules: [
    { field: 'date_from', rule: 'not after date_to (vat, statement)' },
    { field: 'date_to', rule: `at most ${MAX_REPORT_YEARS} years after date_from (vat, statement)` },
    { field: 'partner', rule: 'a partner of the organization (statement)' },
  ],
});

export const reportOperations = [runReport];
