import { z } from 'zod';
import {
  baseRequest,
  dateField,
  dateTimeField,
  exchangeRate,
  intId,
  optionalText,
  pageRequest,
  paginationSchema,
  searchText,
} from '../fields';
import { createInvoiceFromSource, invoiceStatuses, invoiceTypes } from '../invoicing';
import {
  allowanceChargeInput,
  documentTaxInput,
  documentTaxRecord,
  lineItemInput,
  lineRecordFields,
  MAX_ALLOWANCES_CHARGES,
  taxBreakdownRecord,
} from '../lines';

export const quotationTypes = ['quotation', 'proforma', 'estimate'] as const;
export const quotationStatuses = ['draft', 'sent', 'accepted', 'converted', 'cancelled', 'expired'] as const;
/** A quotation starts as a draft or as already sent; every other status is reached by an action. */
export const initialQuotationStatuses = ['draft', 'sent'] as const;
/** Statuses an edit may ask for; converted, cancelled and expired come from their own actions or the calendar. */
export const editableQuotationStatuses = ['draft', 'sent', 'accepted'] as const;

export type QuotationType = (typeof quotationTypes)[number];
export type QuotationStatus = (typeof quotationStatuses)[number];

/** Lines per quotation: enough for any real quote, small enough to keep one document one request. */
export const MAX_QUOTATION_LINES = 500;

const quotationNumber = optionalText(50);

export const createQuotationRequest = z.object({
  ...baseRequest,
  action: z.literal('create_quotation'),
  partner: intId,
  quotation_number: quotationNumber,
  quotation_type: z.enum(quotationTypes),
  quotation_status: z.enum(initialQuotationStatuses).optional(),
  quotation_date: dateTimeField,
  valid_until: dateField,
  comments: optionalText(5000, 'multiline'),
  quotation_reference: optionalText(200),
  line_items: z.array(lineItemInput).max(MAX_QUOTATION_LINES, `must have at most ${MAX_QUOTATION_LINES} lines`).optional(),
  ...documentTaxInput,
});

export const addQuotationLineRequest = z
  .object({ ...baseRequest, action: z.literal('add_line'), quotation_id: intId })
  .extend(lineItemInput.shape);

export const editQuotationRequest = z.object({
  ...baseRequest,
  action: z.literal('edit_quotation'),
  quotation_id: intId,
  quotation_number: quotationNumber,
  quotation_status: z.enum(quotationStatuses).optional(),
  valid_until: dateField.optional(),
  comments: optionalText(5000, 'multiline'),
  quotation_reference: optionalText(200),
  /** Replaces the quotation's allowances and charges (`[]` removes them); only while lines may still be added. */
  allowances_charges: z
    .array(allowanceChargeInput)
    .max(MAX_ALLOWANCES_CHARGES, `must have at most ${MAX_ALLOWANCES_CHARGES} entries`)
    .optional(),
  /** `null` clears it. */
  exchange_rate: exchangeRate().nullable().optional(),
});

export const listQuotationsRequest = z.object({
  ...baseRequest,
  search_key: searchText(),
  status: z.enum(quotationStatuses).optional(),
  quotation_type: z.enum(quotationTypes).optional(),
  ...pageRequest,
});

export const getQuotationRequest = z.object({ ...baseRequest, quotation_id: intId });
export const quotationTotalRequest = z.object({ ...baseRequest, quotation_id: intId, calculate_total: z.literal(true) });
export const cancelQuotationRequest = z.object({ ...baseRequest, action: z.literal('cancel_quotation'), quotation_id: intId });
export const convertQuotationRequest = z.object({
  ...baseRequest,
  action: z.literal('convert_to_invoice'),
  quotation_id: intId,
  invoicetype: z.enum(invoiceTypes),
});

export const quotationLineRecord = z.object({
  id: z.number().int(),
  quotation_id: z.number().int(),
  ...lineRecordFields,
});
export type QuotationLineRecord = z.infer<typeof quotationLineRecord>;

const quotationHeader = {
  id: z.number().int(),
  orgid: z.number().int(),
  quotation_number: z.string(),
  quotation_type: z.enum(quotationTypes),
  quotation_status: z.enum(quotationStatuses),
  quotation_date: z.string(),
  valid_until: z.string(),
  comments: z.string().nullable(),
  quotation_reference: z.string().nullable(),
  subtotal: z.number(),
  tax_amount: z.number(),
  discount_total: z.number(),
  quotation_total: z.number(),
  ...documentTaxRecord,
  invoice_id: z.number().int().nullable(),
  invoicenumber: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
};

/** Create's answer: the header with `partner` as the id string the request used, plus totals and lines. */
export const quotationRecord = z.object({ ...quotationHeader, partner: z.string(), line_items: z.array(quotationLineRecord) });
export type QuotationRecord = z.infer<typeof quotationRecord>;

export const partnerSummary = z.object({ id: z.number().int(), partnername: z.string().nullable(), display_name: z.string().nullable() });

/** A list row: `partner` is an object (spec 2.6). */
export const quotationListRecord = z.object({ ...quotationHeader, partner: partnerSummary });
export type QuotationListRecord = z.infer<typeof quotationListRecord>;

export const createQuotationReply = z.object({ message: z.string(), quotation: quotationRecord });
export const getQuotationReply = z.object({ message: z.string(), quotation: quotationRecord });
export const addQuotationLineReply = z.object({
  message: z.string(),
  line_item: quotationLineRecord,
  /** The quotation's totals after the line. */
  totals: z.object({
    subtotal: z.number(),
    tax_amount: z.number(),
    discount_total: z.number(),
    quotation_total: z.number(),
    vat_total: z.number(),
    rounding_amount: z.number(),
    tax_breakdown: z.array(taxBreakdownRecord),
  }),
});
export const editQuotationReply = z.object({
  message: z.string(),
  quotation: z.object({
    id: z.number().int(),
    quotation_number: z.string(),
    quotation_status: z.enum(quotationStatuses),
    valid_until: z.string(),
    comments: z.string().nullable(),
    quotation_reference: z.string().nullable(),
    subtotal: z.number(),
    tax_amount: z.number(),
    quotation_total: z.number(),
    ...documentTaxRecord,
  }),
});
export const listQuotationsReply = z.object({
  message: z.string(),
  quotations: z.array(quotationListRecord),
  pagination: paginationSchema,
});
export const quotationTotalReply = z.object({
  message: z.string(),
  quotation_id: z.number().int(),
  subtotal: z.number(),
  tax_amount: z.number(),
  discount_total: z.number(),
  quotation_total: z.number(),
  currency: z.string().nullable(),
  vat_total: z.number(),
  rounding_amount: z.number(),
  tax_breakdown: z.array(taxBreakdownRecord),
});
export const cancelQuotationReply = z.object({ message: z.string() });
export const convertedInvoice = z.object({
  id: z.number().int(),
  orgid: z.number().int(),
  invoicenumber: z.string(),
  invoicetype: z.enum(invoiceTypes),
  partner: z.string(),
  invoicestatus: z.enum(invoiceStatuses),
  subtotal: z.number(),
  tax_amount: z.number(),
  invoicetotal: z.number(),
});
export const convertQuotationReply = z.object({ message: z.string(), invoice: convertedInvoice });

/**
 * What sales reads of invoicing's `create_from_source` answer: only the fields it relies on, so
 * invoicing may grow its invoice record without breaking conversions.
 */
export const sourceInvoiceAnswer = z.object({
  created: z.boolean(),
  invoice: z
    .object({
      id: z.number().int(),
      orgid: z.number().int(),
      invoicenumber: z.string(),
      invoicetype: z.enum(invoiceTypes),
      partner: z.union([z.number().int(), z.string()]),
      invoicestatus: z.enum(invoiceStatuses),
      subtotal: z.number(),
      tax_amount: z.number(),
      invoicetotal: z.number(),
    })
    .loose(),
});
export type SourceInvoice = z.output<typeof sourceInvoiceAnswer>['invoice'];
export type SourceInvoiceRequest = z.input<typeof createInvoiceFromSource.request>;
