import { cashAmountRule } from '../fields';
import { allowancesChargesRule, exchangeRateRule, lineTaxRule, partyVatIdRules, reverseChargeRateRule } from '../lines';
import { defineOperation } from '../operation';
import * as s from './schemas';
import { lockDateRule } from './payments';
import { renderInvoice } from './render';
import * as partnerSchemas from '../partners/schemas';

export const createInvoice = defineOperation({
  name: 'invoicing.invoice.create',
  service: 'invoicing',
  summary: 'Create an invoice, credit note or bill (also a recurring contract)',
  paths: ['/invoicing/invoice/new'],
  select: { default: true },
  write: true,
  request: s.createInvoiceRequest,
  reply: s.invoiceReply,
  rules: [
    { field: 'invoicedue', rule: 'not before the invoice date' },
    {
      field: 'partner',
      rule: 'a live partner whose type fits the document: customer (or both) for invoiceout/creditout, vendor (or both) for invoicein/creditin',
    },
    {
      field: 'line_items',
      rule: 'each names a live catalog product of the organization (and its variant and location when given); each line total and the document total below their limits',
    },
    allowancesChargesRule,
    exchangeRateRule,
    lineTaxRule('line_items'),
    { field: 'recurring.frequency', rule: 'required when recurring.enabled is true' },
    { field: 'recurring.start_date', rule: 'at most a year in the past' },
    { field: 'restock', rule: 'false only on a credit note (creditout, creditin)' },
    {
      field: 'sourceid',
      rule: 'on a credit note with sourcetype "invoice": the id of an issued invoice of the organization, of the same partner and the paired type',
    },
    { field: 'currency', rule: "on a credit note of an invoice: the invoice's currency (taken when none is given)" },
  ],
});
export const listInvoices = defineOperation({
  name: 'invoicing.invoice.list',
  service: 'invoicing',
  summary: 'List invoices with filters, sorting and pagination',
  paths: ['/invoicing/listinvoices'],
  select: { default: true },
  write: false,
  request: s.listInvoicesRequest,
  reply: s.listInvoicesReply,
  rules: [
    { field: 'date_from', rule: 'not after date_to' },
    { field: 'amount_min', rule: 'not more than amount_max' },
  ],
});
export const addInvoiceLine = defineOperation({
  name: 'invoicing.invoice.add_line',
  service: 'invoicing',
  summary: 'Add a line to a draft or proforma invoice',
  paths: ['/invoicing/addline'],
  select: { default: true },
  write: true,
  request: s.addLineRequest,
  reply: s.addLineReply,
  rules: [
    { field: 'quantity', rule: 'the line total below its limit' },
    lineTaxRule('tax_rate'),
    reverseChargeRateRule,
    { field: 'product_id', rule: 'a live catalog product of the organization' },
    { field: 'variant_id', rule: 'a variant of that product' },
    { field: 'location_id', rule: 'a location of the organization' },
  ],
});
export const cancelInvoice = defineOperation({
  name: 'invoicing.invoice.cancel',
  service: 'invoicing',
  summary: 'Cancel a draft or proforma invoice',
  paths: ['/invoicing/invoice/new'],
  select: { flag: 'cancel_invoice' },
  write: true,
  request: s.cancelInvoiceRequest,
  reply: s.statusReply,
});
export const validateInvoice = defineOperation({
  name: 'invoicing.invoice.validate',
  service: 'invoicing',
  summary: 'Post an invoice: open it and write its journal entry',
  paths: ['/invoicing/invoice/new'],
  select: { flag: 'validate_invoice' },
  write: true,
  request: s.validateInvoiceRequest,
  reply: s.validateReply,
  rules: [
    {
      field: 'exchange_rate',
      rule: "the invoice's, or the rate table's on the invoice date, when its currency is not the organization's accounting currency",
    },
    // Validation posts on the invoice's own date, which is no field of its request.
    {
      field: 'lock_date',
      rule: "the invoice date after the organization's lock_date (its profile; the books are closed up to and including it)",
    },
    ...partyVatIdRules,
    // A credit note of an invoice is judged against it: neither field is of this request.
    { field: 'currency', rule: "a credit note's currency is the currency of the invoice it credits" },
    {
      field: 'line_items',
      rule: "a credit note that restocks returns at most what its invoice delivered per product, less earlier credit notes' returns (each line's quantity)",
    },
  ],
});
export const invoiceBalances = defineOperation({
  name: 'invoicing.invoice.balances',
  service: 'invoicing',
  summary: 'Totals, payments and journals of an invoice',
  paths: ['/invoicing/getinvoice'],
  select: { default: true },
  write: false,
  request: s.balancesRequest,
  reply: s.balancesReply,
});
export const registerPayment = defineOperation({
  name: 'invoicing.invoice.register_payment',
  service: 'invoicing',
  summary: 'Register a (partial) payment on an open invoice',
  paths: ['/invoicing/invoice/new'],
  domainWide: true,
  select: { flag: 'register_payment' },
  write: true,
  request: s.registerPaymentRequest,
  reply: s.paymentReply,
  rules: [
    { field: 'amount', rule: 'not more than the amount still due' },
    cashAmountRule('amount'),
    {
      field: 'exchange_rate',
      rule: "given, in the rate table on payment_date, or the invoice's, when its currency is not the organization's accounting currency; 1 when it is",
    },
    lockDateRule('payment_date'),
  ],
});
export const pauseRecurring = defineOperation({
  name: 'invoicing.recurring.pause',
  service: 'invoicing',
  summary: 'Pause a recurring contract',
  paths: ['/invoicing/invoice/new'],
  domainWide: true,
  select: { flag: 'pause_recurring' },
  write: true,
  request: s.pauseRecurringRequest,
  reply: s.recurringReply,
});
export const resumeRecurring = defineOperation({
  name: 'invoicing.recurring.resume',
  service: 'invoicing',
  summary: 'Resume a paused recurring contract',
  paths: ['/invoicing/invoice/new'],
  domainWide: true,
  select: { flag: 'resume_recurring' },
  write: true,
  request: s.resumeRecurringRequest,
  reply: s.recurringReply,
});
export const cancelRecurring = defineOperation({
  name: 'invoicing.recurring.cancel',
  service: 'invoicing',
  summary: 'Cancel a recurring contract',
  paths: ['/invoicing/invoice/new'],
  domainWide: true,
  select: { flag: 'cancel_recurring' },
  write: true,
  request: s.cancelRecurringRequest,
  reply: s.recurringReply,
});
export const generateChildInvoice = defineOperation({
  name: 'invoicing.recurring.generate',
  service: 'invoicing',
  summary: 'Make the next child invoice of a recurring contract now',
  paths: ['/invoicing/invoice/new'],
  domainWide: true,
  select: { flag: 'generate_child_invoice' },
  write: true,
  request: s.generateChildRequest,
  reply: s.generateReply,
});

/**
 * Internal (not routed over HTTP): creates the draft invoice for a source document such as a
 * quotation, at most once per (sourcetype, sourceid); a repeat returns the invoice made first.
 */
export const createInvoiceFromSource = defineOperation({
  name: 'invoicing.invoice.create_from_source',
  service: 'invoicing',
  summary: 'Internal: idempotent invoice creation for a source document',
  paths: [],
  select: { default: true },
  write: true,
  request: s.createFromSourceRequest,
  reply: s.createFromSourceReply,
});

/** Internal: the partner's open invoices (draft, proforma, or posted with something due) and active recurring contracts, asked by partners before a delete (not routed over HTTP). */
export const partnerOpenInvoices = defineOperation({
  name: 'invoicing.partner.open_documents',
  service: 'invoicing',
  summary:
    "Internal: a partner's open invoices (draft, proforma, or posted with something due) and active recurring contracts, asked before the partner is deleted",
  paths: [],
  select: { default: true },
  write: false,
  request: partnerSchemas.openDocumentsRequest,
  reply: partnerSchemas.openDocumentsReply,
});

export const invoicingOperations = [
  createInvoice,
  listInvoices,
  addInvoiceLine,
  cancelInvoice,
  validateInvoice,
  invoiceBalances,
  renderInvoice,
  registerPayment,
  pauseRecurring,
  resumeRecurring,
  cancelRecurring,
  generateChildInvoice,
  createInvoiceFromSource,
  partnerOpenInvoices,
];
