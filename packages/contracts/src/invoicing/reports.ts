import { VAT_CATEGORIES } from '@bo/kernel';
import { z } from 'zod';
import { baseRequest, dateField } from '../fields';
import { defineOperation } from '../operation';

/**
 * The books' reports (docs/invoicing.md, "VAT report"): one operation, the report picked by
 * `report`, each read from the journal so it agrees with it to the cent.
 */
export const reportNames = ['vat'] as const;
export type ReportName = (typeof reportNames)[number];

/** The most a report's period may span: ten years, inclusive of both ends. */
export const MAX_REPORT_YEARS = 10;

export const runReportRequest = z.object({
  ...baseRequest,
  report: z.enum(reportNames),
  /** The organization's local dates, both inclusive. */
  date_from: dateField,
  date_to: dateField,
});

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

export const runReport = defineOperation({
  name: 'invoicing.report.run',
  service: 'invoicing',
  summary: 'A report of the books over a period: `vat`, the VAT return by direction, category and rate',
  paths: ['/invoicing/reports'],
  select: { default: true },
  write: false,
  request: runReportRequest,
  reply: vatReportReply,
  rules: [
    { field: 'date_from', rule: 'not after date_to' },
    { field: 'date_to', rule: `at most ${MAX_REPORT_YEARS} years after date_from` },
  ],
});

export const reportOperations = [runReport];
