import { z } from 'zod';
import {
  atMost,
  baseRequest,
  cashAmount,
  dateField,
  dateTimeField,
  exchangeRate,
  intId,
  money,
  notBlank,
  optionalText,
  pageRequest,
  paginationSchema,
  plainString,
  searchText,
} from '../fields';
import { documentTaxInput, documentTaxRecord, lineItemInput, lineRecordFields, taxBreakdownRecord } from '../lines';

export const invoiceTypes = ['invoiceout', 'creditout', 'invoicein', 'creditin'] as const;
/** `written_off`: what was due was written off as a bad debt (docs/invoicing.md, "Cash application"). */
export const invoiceStatuses = ['draft', 'proforma', 'open', 'paid', 'cancelled', 'overdue', 'written_off'] as const;
/**
 * Where paying a document stands, beside its `invoicestatus` (docs/invoicing.md "Payment state"):
 * `in_payment` while it is a transfer of a payment file not yet booked by the bank (docs/bank.md),
 * `partial` with something paid and something due, `written_off` once written off as a bad debt.
 */
export const paymentStates = ['not_paid', 'partial', 'in_payment', 'paid', 'written_off'] as const;
export type PaymentState = (typeof paymentStates)[number];
/** Statuses an invoice may be created in (docs/design.md section 4). */
export const creatableStatuses = ['draft', 'proforma'] as const;
export const recurringFrequencies = ['daily', 'weekly', 'monthly', 'quarterly', 'yearly'] as const;
export const recurringStatuses = ['active', 'paused', 'cancelled', 'completed'] as const;

export type InvoiceType = (typeof invoiceTypes)[number];
/**
 * What a document of each type does to the partner's balance, what the partner owes the organization
 * (docs/design.md section 4): a customer invoice adds, a credit note to a customer takes off, a vendor
 * bill takes off, a vendor credit adds.
 */
export const balanceSign: Record<InvoiceType, 1 | -1> = { invoiceout: 1, creditout: -1, invoicein: -1, creditin: 1 };
/**
 * What a document of each type does to what the partner owes as a customer (its receivable): a
 * customer invoice adds, a credit note to the customer takes off, vendor documents leave it alone.
 * Credit exposure and committed amounts count documents by this, whatever the partner's type.
 */
export const receivableSign: Record<InvoiceType, 1 | 0 | -1> = { invoiceout: 1, creditout: -1, invoicein: 0, creditin: 0 };
/** A document in the making (draft, proforma, converted quotation) commits credit only if it becomes a customer invoice. */
export const commitsCredit = (type: InvoiceType): boolean => receivableSign[type] > 0;
export type InvoiceStatus = (typeof invoiceStatuses)[number];
export type RecurringFrequency = (typeof recurringFrequencies)[number];
export type RecurringStatus = (typeof recurringStatuses)[number];

/**
 * `is_parent`, `next_run_date` and `status` are accepted because clients echo them, but the server
 * decides them: a contract is created active, as a parent, with its first run on `start_date`.
 */
export const recurringInput = z.object({
  enabled: z.boolean(),
  is_parent: z.boolean().optional(),
  // An empty frequency (a form's unset choice) is no frequency, so it gets spec 7.3's message, not an enum error.
  frequency: z
    .union([z.enum(recurringFrequencies), z.literal('')])
    .optional()
    .transform((v) => (v === '' ? undefined : v)),
  start_date: dateField.optional(),
  next_run_date: dateField.nullable().optional(),
  occurrences_count: z.number().int().min(0).max(10000).optional(),
  status: z.enum(recurringStatuses).optional(),
});

/** An empty string means "no source" for clients that always send the three source fields. */
const sourceText = optionalText(64).transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

export const invoiceHeader = {
  ...baseRequest,
  invoicetype: z.enum(invoiceTypes),
  partner: intId,
  invoicenumber: optionalText(50).transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim())),
  invoicedatetime: dateTimeField.optional(),
  invoicestatus: z.enum(creatableStatuses).optional(),
  comments: optionalText(5000, 'multiline'),
  invoicereference: optionalText(200),
  invoiceterms: optionalText(2000, 'multiline'),
  invoicedue: dateField.nullable().optional(),
  // Accepted for compatibility; the server recomputes every amount from the lines.
  subtotal: money().optional(),
  tax_amount: money().optional(),
  invoicetotal: money().optional(),
  sourceid: sourceText,
  sourcenumber: sourceText,
  sourcetype: sourceText,
  chartofaccounts: optionalText(100),
  invoicejournal: optionalText(100),
  tradeaccount: optionalText(100),
  line_items: z.array(lineItemInput).max(500, 'must have at most 500 lines').optional(),
  ...documentTaxInput,
};

export const createInvoiceRequest = z.object({
  ...invoiceHeader,
  recurring: recurringInput.optional(),
  /** A credit note's choice: return its goods to stock (default) or not (a price-only rebate). Other types always move stock. */
  restock: z.boolean().optional(),
});

/**
 * A source document's line: as entered, with the catalog snapshot the source kept when the line was
 * made. The invoice keeps that snapshot (what the customer accepted), catalog only confirming that
 * the records still exist. Optional, so a sender from before it still converts (taking the catalog's).
 */
export const sourceLineItem = lineItemInput.extend({
  snapshot: z
    .object({
      product_name: plainString().check(atMost(200)).nullable(),
      description: plainString('multiline').check(atMost(2000)).nullable(),
      sku: plainString().check(atMost(100)).nullable(),
      uom: plainString().check(atMost(50)).nullable(),
    })
    .optional(),
});

/** The conversion of a quotation (sales alone sends it): the link it records is the server's own. */
export const createFromSourceRequest = z.object({
  ...invoiceHeader,
  line_items: z.array(sourceLineItem).max(500, 'must have at most 500 lines').optional(),
  sourcetype: z.literal('quotation'),
  sourceid: intId.transform(String),
  sourcenumber: plainString().trim().check(notBlank(), atMost(64)),
  /**
   * When the caller stops waiting (epoch milliseconds): the invoice is committed before it or never,
   * so a caller that sees it pass knows this request can no longer make an invoice.
   */
  commit_before: z.number().int().positive().optional(),
  // `currency` is the source's: the invoice bills in the currency the source was made in, whatever the partner's is now.
});

const byId = { ...baseRequest, id: intId };
export const cancelInvoiceRequest = z.object({ ...byId, cancel_invoice: z.literal(true) });
export const validateInvoiceRequest = z.object({
  ...byId,
  validate_invoice: z.literal(true),
  override_credit_limit: z.boolean().optional(),
});
export const registerPaymentRequest = z.object({
  ...byId,
  register_payment: z.literal(true),
  amount: cashAmount({ positive: true }),
  payment_date: dateField.optional(),
  journal: optionalText(100),
  /** Units of the accounting currency per 1 unit of the invoice's currency the money was worth (docs/invoicing.md "Payments in another currency"). */
  exchange_rate: exchangeRate().optional(),
});
export const pauseRecurringRequest = z.object({ ...byId, pause_recurring: z.literal(true) });
export const resumeRecurringRequest = z.object({ ...byId, resume_recurring: z.literal(true) });
export const cancelRecurringRequest = z.object({
  ...byId,
  cancel_recurring: z.literal(true),
  cancellation_reason: optionalText(2000, 'multiline'),
});
export const generateChildRequest = z.object({ ...byId, generate_child_invoice: z.literal(true) });

export const listInvoicesRequest = z.object({
  ...baseRequest,
  include_items: z.boolean().optional(),
  // Ids as strings or numbers (spec 4.4 sends strings), bounded like every id so a huge one is a 400, not a database error.
  partner_ids: z.array(intId).max(500, 'must have at most 500 ids').optional(),
  status_filter: z.enum(invoiceStatuses).optional(),
  payment_state: z.enum(paymentStates).optional(),
  date_from: dateField.optional(),
  date_to: dateField.optional(),
  amount_min: money().optional(),
  amount_max: money().optional(),
  sort_by: z.enum(['number', 'date', 'total', 'due']).optional(),
  sort_order: z.enum(['asc', 'desc']).optional(),
  search_key: searchText(),
  ...pageRequest,
});

export const addLineRequest = z.object({ ...baseRequest, invoice_id: intId }).extend(lineItemInput.shape);

export const balancesRequest = z.object({ ...baseRequest, id: intId, include_items: z.boolean().optional() });

// ---- replies ----

export const invoiceLineRecord = z.object({
  id: z.number().int(),
  invoiceid: z.number().int(),
  ...lineRecordFields,
});
export type InvoiceLineRecord = z.infer<typeof invoiceLineRecord>;

export const recurringRecord = z.object({
  enabled: z.boolean(),
  is_parent: z.boolean(),
  frequency: z.enum(recurringFrequencies).nullable(),
  start_date: z.string().nullable(),
  next_run_date: z.string().nullable(),
  occurrences_count: z.number().int(),
  generated_count: z.number().int(),
  status: z.enum(recurringStatuses).nullable(),
  cancellation_reason: z.string().nullable(),
  parent_id: z.number().int().nullable(),
});
export type RecurringRecord = z.infer<typeof recurringRecord>;

/** An invoice's totals with what was paid and what is due, as every invoice view shows them. */
const invoiceAmounts = {
  subtotal: z.number(),
  tax_amount: z.number(),
  invoicetotal: z.number(),
  amount_paid: z.number(),
  due_amount: z.number(),
  /** Where paying it stands (paymentStates), read with the record. */
  payment_state: z.enum(paymentStates),
};

/** The invoice as create answers it (spec 2.7), plus the amounts paid and due. */
/** A customer invoice's ISO 11649 creditor reference (docs/invoicing.md "Payment references"). */
const paymentReferenceField = z.string().nullable();

export const invoiceRecord = z.object({
  id: z.number().int(),
  orgid: z.number().int(),
  /** The partner id as the string the request carries (spec 2.7 `partner`, string partner id), as the quotation's and the converted invoice's. */
  partner: z.string(),
  invoicenumber: z.string(),
  /** The ISO 11649 creditor reference customers pay a customer invoice with (`RF…`, no spaces), set at validation; null on other types and before. */
  payment_reference: paymentReferenceField,
  invoicetype: z.enum(invoiceTypes),
  /** An integer when the creating user id is one (spec 2.7), else the id as sent. */
  userid: z.union([z.number().int(), z.string()]).nullable(),
  invoicestatus: z.enum(invoiceStatuses),
  invoicedatetime: z.string(),
  comments: z.string().nullable(),
  invoicereference: z.string().nullable(),
  invoiceterms: z.string().nullable(),
  invoicedue: z.string().nullable(),
  ...invoiceAmounts,
  sourceid: z.string().nullable(),
  sourcenumber: z.string().nullable(),
  sourcetype: z.string().nullable(),
  chartofaccounts: z.string().nullable(),
  invoicejournal: z.string().nullable(),
  tradeaccount: z.string().nullable(),
  /** Whether validating it moves stock: false only on a credit note made with `restock: false`. */
  restock: z.boolean(),
  ...documentTaxRecord,
  recurring: recurringRecord,
  line_items: z.array(invoiceLineRecord),
  created_at: z.string(),
  updated_at: z.string(),
});
export type InvoiceRecord = z.infer<typeof invoiceRecord>;

export const invoiceReply = z.object({ message: z.string(), invoice: invoiceRecord });

export const createFromSourceReply = z.object({ message: z.string(), created: z.boolean(), invoice: invoiceRecord });

export const partnerRef = z.object({
  id: z.number().int(),
  partnername: z.string().nullable(),
  display_name: z.string().nullable(),
  imageUrl: z.string().nullable(),
});

export const invoiceListRecord = z.object({
  id: z.number().int(),
  orgid: z.number().int(),
  invoicenumber: z.string(),
  payment_reference: paymentReferenceField,
  invoicetype: z.enum(invoiceTypes),
  invoicestatus: z.enum(invoiceStatuses),
  partner: partnerRef,
  invoicedatetime: z.string(),
  invoicedue: z.string().nullable(),
  ...invoiceAmounts,
  /** The document's currency and tax totals, as the invoice record states them (documentTaxRecord). */
  currency: documentTaxRecord.currency,
  vat_total: documentTaxRecord.vat_total,
  allowance_total: documentTaxRecord.allowance_total,
  charge_total: documentTaxRecord.charge_total,
  creator: z.string(),
  recurring: z.object({ enabled: z.boolean() }),
  line_items: z.array(invoiceLineRecord).optional(),
});

export const listInvoicesReply = z.object({ message: z.string(), invoices: z.array(invoiceListRecord), pagination: paginationSchema });

export const addLineReply = z.object({
  message: z.string(),
  line_item: invoiceLineRecord,
  invoice: z.object({
    id: z.number().int(),
    subtotal: z.number(),
    tax_amount: z.number(),
    invoicetotal: z.number(),
    vat_total: z.number(),
    rounding_amount: z.number(),
    tax_breakdown: z.array(taxBreakdownRecord),
  }),
});

export const statusReply = z.object({
  message: z.string(),
  invoice: z.object({ id: z.number().int(), invoicenumber: z.string(), invoicestatus: z.enum(invoiceStatuses) }),
});

export const validateReply = z.object({
  message: z.string(),
  invoice: z.object({
    id: z.number().int(),
    invoicenumber: z.string(),
    payment_reference: paymentReferenceField,
    invoicestatus: z.enum(invoiceStatuses),
    journal_entry_id: z.number().int(),
    invoicetotal: z.number(),
    due_amount: z.number(),
  }),
});

export const journalRef = z.object({ id: z.number().int(), journalname: z.string(), journaldate: z.string(), amount: z.number() });

export const paymentReply = z.object({
  message: z.string(),
  invoice: z.object({
    id: z.number().int(),
    invoicenumber: z.string(),
    invoicestatus: z.enum(invoiceStatuses),
    invoicetotal: z.number(),
    amount_paid: z.number(),
    due_amount: z.number(),
  }),
  payment: z.object({
    id: z.number().int(),
    amount: z.number(),
    payment_date: z.string(),
    journal: z.string(),
    journal_entry_id: z.number().int(),
  }),
});

/** A document's cash figures: what a payment operation answers of each document it touched, and what the balances view starts from. */
export const settledDocument = z.object({
  id: z.number().int(),
  invoicenumber: z.string(),
  invoicetype: z.enum(invoiceTypes),
  invoicestatus: z.enum(invoiceStatuses),
  invoicetotal: z.number(),
  amount_paid: z.number(),
  due_amount: z.number(),
});

export const balancesReply = z.object({
  message: z.string(),
  invoices: z.array(
    settledDocument.extend({
      payment_reference: paymentReferenceField,
      payment_state: z.enum(paymentStates),
      journals: z.array(journalRef),
      payjournals: z.array(journalRef),
      line_items: z.array(invoiceLineRecord).optional(),
    }),
  ),
});

const recurringInvoiceRef = z.object({ id: z.number().int(), invoicenumber: z.string(), recurring: recurringRecord });

export const recurringReply = z.object({ message: z.string(), invoice: recurringInvoiceRef });
export const generateReply = z.object({ message: z.string(), invoice: recurringInvoiceRef, child: invoiceRecord });
