import { z } from 'zod';
import { baseRequest, dateField, dateTimeField, intId, money, optionalText, pageRequest } from '../fields';
import { defineEvent } from '../events';
import { lineItemInput } from '../lines';
import { defineOperation } from '../operation';

// First draft of the invoicing contracts (spec 2.7, 4.4); the invoicing service refines the
// operations. The events below are what the partners service consumes: keep them stable.
const loose = z.object({ message: z.string() }).loose();

export const invoiceTypes = ['invoiceout', 'creditout', 'invoicein', 'creditin'] as const;
export const invoiceStatuses = ['draft', 'proforma', 'open', 'paid', 'cancelled', 'overdue'] as const;
export const recurringFrequencies = ['daily', 'weekly', 'monthly', 'quarterly', 'yearly'] as const;
export const recurringStatuses = ['active', 'paused', 'cancelled', 'completed'] as const;

export const recurringInput = z.object({
  enabled: z.boolean(),
  is_parent: z.boolean().optional(),
  frequency: z.enum(recurringFrequencies).optional(),
  start_date: dateField.optional(),
  next_run_date: dateField.optional(),
  occurrences_count: z.number().int().min(0).optional(),
  status: z.enum(recurringStatuses).optional(),
});

const invoiceHeader = {
  ...baseRequest,
  invoicetype: z.enum(invoiceTypes),
  partner: intId,
  invoicenumber: optionalText(50),
  invoicedatetime: dateTimeField.optional(),
  invoicestatus: z.enum(invoiceStatuses).optional(),
  comments: optionalText(5000),
  invoicereference: optionalText(200),
  invoiceterms: optionalText(2000),
  invoicedue: dateField.nullable().optional(),
  subtotal: money().optional(),
  tax_amount: money().optional(),
  invoicetotal: money().optional(),
  sourceid: optionalText(64),
  sourcenumber: optionalText(64),
  sourcetype: optionalText(64),
  chartofaccounts: optionalText(100),
  invoicejournal: optionalText(100),
  tradeaccount: optionalText(100),
  line_items: z.array(lineItemInput).max(500).optional(),
};

export const createInvoiceRequest = z.object({ ...invoiceHeader, recurring: recurringInput.optional() });

const byId = (flag: string, extra: Record<string, z.ZodType> = {}) =>
  z.object({ ...baseRequest, [flag]: z.literal(true), id: intId, ...extra });

export const createInvoice = defineOperation({
  name: 'invoicing.invoice.create', service: 'invoicing', summary: 'Create an invoice, credit note or bill (also a recurring contract)',
  paths: ['/invoicing/invoice/new'], select: { default: true }, write: true, request: createInvoiceRequest, reply: loose,
});
export const listInvoices = defineOperation({
  name: 'invoicing.invoice.list', service: 'invoicing', summary: 'List invoices with filters, sorting and pagination',
  paths: ['/invoicing/listinvoices'], select: { default: true }, write: false,
  request: z.object({
    ...baseRequest, include_items: z.boolean().optional(), partner_ids: z.array(z.union([z.string(), z.number().int()]).transform(String)).optional(),
    status_filter: z.enum(invoiceStatuses).optional(), date_from: dateField.optional(), date_to: dateField.optional(),
    amount_min: money().optional(), amount_max: money().optional(), sort_by: z.enum(['number', 'date', 'total', 'due']).optional(),
    sort_order: z.enum(['asc', 'desc']).optional(), search_key: z.string().max(200).optional(), ...pageRequest,
  }),
  reply: loose,
});
export const addInvoiceLine = defineOperation({
  name: 'invoicing.invoice.add_line', service: 'invoicing', summary: 'Add a line to a draft or proforma invoice',
  paths: ['/invoicing/addline'], select: { default: true }, write: true,
  request: z.object({ ...baseRequest, invoice_id: intId }).extend(lineItemInput.shape), reply: loose,
});
export const cancelInvoice = defineOperation({
  name: 'invoicing.invoice.cancel', service: 'invoicing', summary: 'Cancel a draft or proforma invoice',
  paths: ['/invoicing/invoice/new'], select: { flag: 'cancel_invoice' }, write: true, request: byId('cancel_invoice'), reply: loose,
});
export const validateInvoice = defineOperation({
  name: 'invoicing.invoice.validate', service: 'invoicing', summary: 'Post an invoice: open it and write its journal entry',
  paths: ['/invoicing/invoice/new'], select: { flag: 'validate_invoice' }, write: true,
  request: byId('validate_invoice', { override_credit_limit: z.boolean().optional() }), reply: loose,
});
export const invoiceBalances = defineOperation({
  name: 'invoicing.invoice.balances', service: 'invoicing', summary: 'Totals, payments and journals of an invoice',
  paths: ['/invoicing/getinvoice'], select: { default: true }, write: false,
  request: z.object({ ...baseRequest, id: intId, include_items: z.boolean().optional() }), reply: loose,
});
export const registerPayment = defineOperation({
  name: 'invoicing.invoice.register_payment', service: 'invoicing', summary: 'Register a (partial) payment on an open invoice',
  paths: ['/invoicing/invoice/new'], domainWide: true, select: { flag: 'register_payment' }, write: true,
  request: byId('register_payment', { amount: money({ positive: true }), payment_date: dateField.optional(), journal: optionalText(100) }), reply: loose,
});
export const pauseRecurring = defineOperation({
  name: 'invoicing.recurring.pause', service: 'invoicing', summary: 'Pause a recurring contract',
  paths: ['/invoicing/invoice/new'], domainWide: true, select: { flag: 'pause_recurring' }, write: true, request: byId('pause_recurring'), reply: loose,
});
export const resumeRecurring = defineOperation({
  name: 'invoicing.recurring.resume', service: 'invoicing', summary: 'Resume a paused recurring contract',
  paths: ['/invoicing/invoice/new'], domainWide: true, select: { flag: 'resume_recurring' }, write: true, request: byId('resume_recurring'), reply: loose,
});
export const cancelRecurring = defineOperation({
  name: 'invoicing.recurring.cancel', service: 'invoicing', summary: 'Cancel a recurring contract',
  paths: ['/invoicing/invoice/new'], domainWide: true, select: { flag: 'cancel_recurring' }, write: true,
  request: byId('cancel_recurring', { cancellation_reason: optionalText(2000) }), reply: loose,
});
export const generateChildInvoice = defineOperation({
  name: 'invoicing.recurring.generate', service: 'invoicing', summary: 'Make the next child invoice of a recurring contract now',
  paths: ['/invoicing/invoice/new'], domainWide: true, select: { flag: 'generate_child_invoice' }, write: true, request: byId('generate_child_invoice'), reply: loose,
});

/**
 * Internal (not routed over HTTP): creates the draft invoice for a source document such as a
 * quotation, at most once per (sourcetype, sourceid); a repeat returns the invoice made first.
 */
export const createInvoiceFromSource = defineOperation({
  name: 'invoicing.invoice.create_from_source', service: 'invoicing', summary: 'Internal: idempotent invoice creation for a source document',
  paths: [], select: { default: true }, write: true,
  request: z.object({ ...invoiceHeader, sourcetype: z.string().min(1), sourceid: z.string().min(1), sourcenumber: z.string().min(1) }),
  reply: z.object({ message: z.string(), created: z.boolean(), invoice: z.object({ id: z.number().int(), orgid: z.number().int(), invoicenumber: z.string(), invoicetype: z.enum(invoiceTypes), partner: z.union([z.string(), z.number()]), invoicestatus: z.enum(invoiceStatuses), subtotal: z.number(), tax_amount: z.number(), invoicetotal: z.number() }).loose() }),
});

export const invoicingOperations = [createInvoice, listInvoices, addInvoiceLine, cancelInvoice, validateInvoice, invoiceBalances, registerPayment, pauseRecurring, resumeRecurring, cancelRecurring, generateChildInvoice, createInvoiceFromSource];

const invoiceRef = {
  invoice_id: z.number().int(),
  invoicenumber: z.string(),
  invoicetype: z.enum(invoiceTypes),
  partner_id: z.number().int(),
  invoicetotal: z.number(),
  sourcetype: z.string().nullable(),
  sourceid: z.string().nullable(),
  sourcenumber: z.string().nullable(),
};

export const invoiceCreated = defineEvent({
  type: 'invoicing.invoice.created', summary: 'An invoice was created (draft or proforma)',
  data: z.object({ ...invoiceRef, invoicestatus: z.enum(invoiceStatuses), invoicedatetime: z.string() }),
});
export const invoiceValidated = defineEvent({
  type: 'invoicing.invoice.validated', summary: 'An invoice was posted; moves the partner balance by its total',
  data: z.object({ ...invoiceRef, journal_entry_id: z.number().int(), invoicedatetime: z.string(), invoicedue: z.string().nullable(), validated_at: z.string() }),
});
export const invoiceCancelled = defineEvent({
  type: 'invoicing.invoice.cancelled', summary: 'A draft or proforma invoice was cancelled',
  data: z.object({ ...invoiceRef, cancelled_at: z.string() }),
});
export const invoicePaymentRegistered = defineEvent({
  type: 'invoicing.invoice.payment_registered', summary: 'A payment was registered on an invoice; moves the partner balance back',
  data: z.object({ ...invoiceRef, payment_id: z.number().int(), amount: z.number(), payment_date: z.string(), journal: z.string().nullable(), amount_paid: z.number(), due_amount: z.number() }),
});
export const invoicePaid = defineEvent({
  type: 'invoicing.invoice.paid', summary: 'Nothing is due on an invoice any more',
  data: z.object({ ...invoiceRef, paid_at: z.string() }),
});

export const invoicingEvents = [invoiceCreated, invoiceValidated, invoiceCancelled, invoicePaymentRegistered, invoicePaid];
