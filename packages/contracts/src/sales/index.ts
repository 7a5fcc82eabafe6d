import { z } from 'zod';
import { baseRequest, dateField, dateTimeField, intId, optionalText, pageRequest } from '../fields';
import { defineEvent } from '../events';
import { lineItemInput } from '../lines';
import { defineOperation } from '../operation';
import { invoiceTypes } from '../invoicing';

// First draft of the sales contracts (spec 2.6, 4.3); the sales service refines the operations.
// `sales.quotation.converted` is consumed by the partners service: keep it stable.
const loose = z.object({ message: z.string() }).loose();

export const quotationTypes = ['quotation', 'proforma', 'estimate'] as const;
export const quotationStatuses = ['draft', 'sent', 'accepted', 'converted', 'cancelled', 'expired'] as const;

export const createQuotation = defineOperation({
  name: 'sales.quotation.create', service: 'sales', summary: 'Create a quotation, proforma or estimate with its lines',
  paths: ['/sales/addline'], select: { action: 'create_quotation' }, write: true,
  request: z.object({
    ...baseRequest, action: z.literal('create_quotation'), partner: intId, quotation_number: optionalText(50),
    quotation_type: z.enum(quotationTypes), quotation_status: z.enum(quotationStatuses).optional(), quotation_date: dateTimeField,
    valid_until: dateField, comments: optionalText(5000), quotation_reference: optionalText(200), line_items: z.array(lineItemInput).max(500).optional(),
  }),
  reply: loose,
});
export const addQuotationLine = defineOperation({
  name: 'sales.quotation.add_line', service: 'sales', summary: 'Add a line to a draft or sent quotation',
  paths: ['/sales/addline'], select: { action: 'add_line' }, write: true,
  request: z.object({ ...baseRequest, action: z.literal('add_line'), quotation_id: intId }).extend(lineItemInput.shape), reply: loose,
});
export const editQuotation = defineOperation({
  name: 'sales.quotation.edit', service: 'sales', summary: 'Edit the header or move the status of a quotation',
  paths: ['/sales/addline'], domainWide: true, select: { action: 'edit_quotation' }, write: true,
  request: z.object({ ...baseRequest, action: z.literal('edit_quotation'), quotation_id: intId, quotation_number: optionalText(50), quotation_status: z.enum(quotationStatuses).optional(), valid_until: dateField.optional(), comments: optionalText(5000), quotation_reference: optionalText(200) }),
  reply: loose,
});
export const listQuotations = defineOperation({
  name: 'sales.quotation.list', service: 'sales', summary: 'List quotations, newest first',
  paths: ['/sales/orderdetail'], select: { default: true }, write: false,
  request: z.object({ ...baseRequest, search_key: z.string().max(200).optional(), status: z.enum(quotationStatuses).optional(), quotation_type: z.enum(quotationTypes).optional(), ...pageRequest }),
  reply: loose,
});
export const quotationTotal = defineOperation({
  name: 'sales.quotation.total', service: 'sales', summary: 'Totals of a quotation',
  paths: ['/sales/orderdetail'], domainWide: true, select: { flag: 'calculate_total' }, write: false,
  request: z.object({ ...baseRequest, quotation_id: intId, calculate_total: z.literal(true) }), reply: loose,
});
export const cancelQuotation = defineOperation({
  name: 'sales.quotation.cancel', service: 'sales', summary: 'Cancel a quotation that is not converted',
  paths: ['/sales/addline'], domainWide: true, select: { action: 'cancel_quotation' }, write: true,
  request: z.object({ ...baseRequest, action: z.literal('cancel_quotation'), quotation_id: intId }), reply: loose,
});
export const convertQuotation = defineOperation({
  name: 'sales.quotation.convert', service: 'sales', summary: 'Convert a quotation into a draft invoice, once',
  paths: ['/sales/addline'], domainWide: true, select: { action: 'convert_to_invoice' }, write: true,
  request: z.object({ ...baseRequest, action: z.literal('convert_to_invoice'), quotation_id: intId, invoicetype: z.enum(invoiceTypes) }), reply: loose,
});

export const salesOperations = [listQuotations, createQuotation, addQuotationLine, editQuotation, quotationTotal, cancelQuotation, convertQuotation];

export const quotationConverted = defineEvent({
  type: 'sales.quotation.converted', summary: "A quotation became a draft invoice; raises the partner's committed amount",
  data: z.object({
    quotation_id: z.number().int(), quotation_number: z.string(), invoice_id: z.number().int(), invoicenumber: z.string(),
    invoicetype: z.enum(invoiceTypes), partner_id: z.number().int(), subtotal: z.number(), tax_amount: z.number(),
    quotation_total: z.number(), converted_at: z.string(),
  }),
});

export const salesEvents = [quotationConverted];
