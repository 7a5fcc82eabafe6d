import { allowancesChargesRule, exchangeRateRule, lineTaxRule, partyVatIdRules, reverseChargeRateRule } from '../lines';
import { defineOperation } from '../operation';
import * as s from './schemas';
import { renderQuotation } from './render';
import * as partnerSchemas from '../partners/schemas';

// Canonical paths: create, add_line, edit, cancel and convert on /sales/addline; list and total on
// /sales/orderdetail. Operations the spec shows no path for are accepted on every /sales/* path.

export const createQuotation = defineOperation({
  name: 'sales.quotation.create',
  service: 'sales',
  summary: 'Create a quotation, proforma or estimate with its lines',
  paths: ['/sales/addline'],
  select: { action: 'create_quotation' },
  write: true,
  request: s.createQuotationRequest,
  reply: s.createQuotationReply,
  rules: [
    { field: 'valid_until', rule: 'not before the quotation date' },
    { field: 'partner', rule: 'a live partner that is a customer or both' },
    allowancesChargesRule,
    exchangeRateRule,
    lineTaxRule('line_items'),
    ...partyVatIdRules,
    {
      field: 'line_items',
      rule: 'each names a live catalog product of the organization (and its variant and location when given); each line total and the quotation total below their limits',
    },
  ],
});
export const addQuotationLine = defineOperation({
  name: 'sales.quotation.add_line',
  service: 'sales',
  summary: 'Add a line to a draft or sent quotation',
  paths: ['/sales/addline'],
  select: { action: 'add_line' },
  write: true,
  request: s.addQuotationLineRequest,
  reply: s.addQuotationLineReply,
  rules: [
    { field: 'quantity', rule: 'the line total and the quotation total below their limits' },
    lineTaxRule('tax_rate'),
    reverseChargeRateRule,
    { field: 'product_id', rule: 'a live catalog product of the organization' },
    { field: 'variant_id', rule: 'a variant of that product' },
    { field: 'location_id', rule: 'a location of the organization' },
  ],
});
export const editQuotation = defineOperation({
  name: 'sales.quotation.edit',
  service: 'sales',
  summary: 'Edit the header or move the status of a quotation',
  paths: ['/sales/addline'],
  domainWide: true,
  select: { action: 'edit_quotation' },
  write: true,
  request: s.editQuotationRequest,
  reply: s.editQuotationReply,
  rules: [{ field: 'valid_until', rule: 'not before the quotation date' }, allowancesChargesRule, exchangeRateRule, ...partyVatIdRules],
});
export const listQuotations = defineOperation({
  name: 'sales.quotation.list',
  service: 'sales',
  summary: 'List quotations, newest first',
  paths: ['/sales/orderdetail'],
  select: { default: true },
  write: false,
  request: s.listQuotationsRequest,
  reply: s.listQuotationsReply,
});
export const getQuotation = defineOperation({
  name: 'sales.quotation.get',
  service: 'sales',
  summary: 'Read one quotation back whole: header, totals and lines',
  paths: ['/sales/orderdetail'],
  select: { present: 'quotation_id' },
  write: false,
  request: s.getQuotationRequest,
  reply: s.getQuotationReply,
});
export const quotationTotal = defineOperation({
  name: 'sales.quotation.total',
  service: 'sales',
  summary: 'Totals of a quotation in the partner currency',
  paths: ['/sales/orderdetail'],
  domainWide: true,
  select: { flag: 'calculate_total' },
  write: false,
  request: s.quotationTotalRequest,
  reply: s.quotationTotalReply,
});
export const cancelQuotation = defineOperation({
  name: 'sales.quotation.cancel',
  service: 'sales',
  summary: 'Cancel a quotation that is not converted',
  paths: ['/sales/addline'],
  domainWide: true,
  select: { action: 'cancel_quotation' },
  write: true,
  request: s.cancelQuotationRequest,
  reply: s.cancelQuotationReply,
});
export const convertQuotation = defineOperation({
  name: 'sales.quotation.convert',
  service: 'sales',
  summary: 'Convert a quotation into a draft invoice, once',
  paths: ['/sales/addline'],
  domainWide: true,
  select: { action: 'convert_to_invoice' },
  write: true,
  request: s.convertQuotationRequest,
  reply: s.convertQuotationReply,
  rules: [
    {
      field: 'partner',
      rule: "the quotation's partner fits the invoice type: customer (or both) for invoiceout/creditout, vendor (or both) for invoicein/creditin",
    },
    {
      field: 'line_items',
      rule: "each of the quotation's lines still names a live catalog product of the organization (and its variant and location)",
    },
  ],
});

/** Internal: the partner's open quotations (draft, sent or accepted, not expired, or being converted), asked by partners before a delete (not routed over HTTP). */
export const partnerOpenQuotations = defineOperation({
  name: 'sales.partner.open_documents',
  service: 'sales',
  summary:
    "Internal: a partner's open quotations (draft, sent or accepted, not expired, or being converted), asked before the partner is deleted",
  paths: [],
  select: { default: true },
  write: false,
  request: partnerSchemas.openDocumentsRequest,
  reply: partnerSchemas.openDocumentsReply,
});

// renderQuotation before getQuotation: both are picked by a field present, and a render request names the quotation too.
export const salesOperations = [
  listQuotations,
  renderQuotation,
  getQuotation,
  createQuotation,
  addQuotationLine,
  editQuotation,
  quotationTotal,
  cancelQuotation,
  convertQuotation,
  partnerOpenQuotations,
];
