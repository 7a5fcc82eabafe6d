// Receiving e-invoices (issue 44, docs/inbound.md): a supplier's UBL, CII or Factur-X document
// imported into a vendor bill, held for review, or rejected by the official rules.
import { z } from 'zod';
import { defineEvent } from '../events';
import { baseRequest, dateField, intId, optionalText, pageRequest, paginationSchema, text } from '../fields';
import { defineOperation } from '../operation';
import { invoiceStatuses } from './schemas';

const INBOUND_PATH = '/invoicing/inbound';

export const inboundStatuses = ['bill_created', 'needs_review', 'rejected'] as const;
export type InboundStatus = (typeof inboundStatuses)[number];
export const inboundSyntaxes = ['ubl', 'cii', 'facturx'] as const;

/** A file as base64: at most 20 MB of bytes (a Factur-X PDF's limit; XML is refused past 10 MB when read). */
const base64File = z
  .string()
  .min(1, 'must not be empty')
  .max(28_000_000, 'must be at most 20 MB once decoded')
  .regex(/^[A-Za-z0-9+/\r\n]*={0,2}[\r\n]*$/, 'must be base64');

export const importInboundRequest = z.object({
  ...baseRequest,
  action: z.literal('import'),
  content_base64: base64File,
  filename: optionalText(255),
  /**
   * Validate (post) the bill when the import makes one (`bill_created`), by the validate operation's
   * own rules; default false: it stays a draft. An import held for review or rejected validates nothing.
   */
  validate: z.boolean().optional(),
});

export const listInboundRequest = z.object({
  ...baseRequest,
  action: z.literal('list'),
  status: z.enum(inboundStatuses).optional(),
  /** The supplier's partner id. */
  partner: intId.optional(),
  /** Imports received on or after this day (the organization's calendar, UTC). */
  date_from: dateField.optional(),
  date_to: dateField.optional(),
  ...pageRequest,
});

export const getInboundRequest = z.object({
  ...baseRequest,
  action: z.literal('get'),
  id: intId,
  /** `original`: the file as received, byte for byte, as `content_base64`. */
  format: z.enum(['original']).optional(),
});

export const acceptInboundRequest = z.object({
  ...baseRequest,
  action: z.literal('accept'),
  id: intId,
  partner: intId.optional(),
  line_products: z
    .array(z.object({ line: text(100), product_id: intId }))
    .max(500)
    .optional(),
});

export const inboundSettingsRequest = z.object({
  ...baseRequest,
  action: z.literal('settings'),
  /** Create an unknown supplier as a vendor from the document's seller (else the import is held for review). Absent: unchanged. */
  inbound_create_partners: z.boolean().optional(),
});
export const inboundSettingsReply = z.object({
  message: z.string(),
  settings: z.object({ inbound_create_partners: z.boolean() }),
});

export const rejectInboundRequest = z.object({
  ...baseRequest,
  action: z.literal('reject'),
  id: intId,
  reason: text(500),
});

const finding = z.object({ rule: z.string(), message: z.string(), location: z.string() });
const amount = z.string().nullable();

export const inboundRecord = z.object({
  id: z.number().int(),
  status: z.enum(inboundStatuses),
  syntax: z.enum(inboundSyntaxes),
  /** BT-24 */
  customization_id: z.string().nullable(),
  /** BT-1 */
  invoice_number: z.string().nullable(),
  /** BT-2 */
  issue_date: z.string().nullable(),
  /** BT-5 */
  currency: z.string().nullable(),
  seller: z.object({
    name: z.string().nullable(),
    vat_id: z.string().nullable(),
    endpoint_id: z.string().nullable(),
    partner_id: z.number().int().nullable(),
  }),
  /** As the document states them, exact decimal text (BT-106, BT-109, BT-110, BT-112, BT-115). */
  totals: z.object({ line_extension: amount, tax_exclusive: amount, tax: amount, tax_inclusive: amount, payable: amount }),
  /**
   * What paying the bill needs, as the document states it: the due date (BT-9), the payment terms
   * (BT-20), the means (BT-81), the supplier's account (BT-84 IBAN, BT-86 BIC, BT-85 name) and the
   * payment reference to quote (BT-83). The bill carries the due date and terms; the rest is kept here.
   */
  payment: z.object({
    due_date: z.string().nullable(),
    terms: z.string().nullable(),
    means_code: z.string().nullable(),
    iban: z.string().nullable(),
    bic: z.string().nullable(),
    account_name: z.string().nullable(),
    reference: z.string().nullable(),
  }),
  validation: z.object({ fatal: z.array(finding), warnings: z.array(finding) }),
  /** The bill made from it, when one was. */
  invoice_id: z.number().int().nullable(),
  sha256: z.string(),
  review_reasons: z.array(z.string()),
  /**
   * What the bill carries as the document states it beyond its own calculation: a VAT category
   * (BT-117) the supplier rounded otherwise, kept with the figure the bill's lines compute
   * (docs/inbound.md, "The sender's VAT kept"). Empty when the bill computes every figure itself.
   */
  notes: z.array(z.string()),
  filename: z.string().nullable(),
  /** Why it was rejected by hand (`reject`), else null. */
  rejection_reason: z.string().nullable(),
  received_at: z.string(),
});
export type InboundRecord = z.infer<typeof inboundRecord>;

export const inboundReply = z.object({ message: z.string(), inbound: inboundRecord });
export const getInboundReply = z.object({
  message: z.string(),
  inbound: inboundRecord,
  /** With `format: "original"`: the file as received. */
  content_base64: z.string().optional(),
  content_type: z.string().optional(),
  sha256: z.string().optional(),
});
/** The import's reply: the import, and the bill this request made, as it stands after it. */
export const importInboundReply = inboundReply.extend({
  /**
   * The bill made by this import: a `draft`, or posted (`open`, or `paid` at zero) with `validate: true`,
   * then with its journal entry. Absent when no bill was made, or when the same bytes answer an earlier import.
   */
  bill: z
    .object({
      id: z.number().int(),
      invoicenumber: z.string(),
      invoicestatus: z.enum(invoiceStatuses),
      journal_entry_id: z.number().int().nullable(),
    })
    .optional(),
});
export const listInboundReply = z.object({ message: z.string(), inbound: z.array(inboundRecord), pagination: paginationSchema });

export const importInbound = defineOperation({
  name: 'invoicing.inbound.import',
  service: 'invoicing',
  summary: "Import a supplier's e-invoice (UBL, CII, Factur-X) into a vendor bill, a review, or a rejection by the official rules",
  paths: [INBOUND_PATH],
  select: { action: 'import' },
  write: true,
  request: importInboundRequest,
  reply: importInboundReply,
  // 20 MB of file is 28 MB of base64 (content_base64's bound), and the body's other fields.
  maxBodyBytes: 28_100_000,
  // The official rules take a third of a second for a small invoice and seconds for a large one, one
  // at a time per rules thread: imports arriving together wait their turn rather than time out.
  timeoutMs: 60_000,
  rules: [
    {
      field: 'content_base64',
      rule: 'a UBL 2.1 Invoice or CreditNote, a CII D16B CrossIndustryInvoice, or a PDF carrying one (Factur-X, ZUGFeRD); no DOCTYPE, at most 10 MB of XML, 64 levels deep; the same supplier, number and issue date as an earlier import is a 409 duplicate_document',
    },
    {
      field: 'validate',
      rule: 'true posts a bill the import makes, in the same transaction, as the validate operation does; a refusal of the validation (lock date, no exchange rate) refuses the import, and nothing is stored',
    },
  ],
});
export const listInbound = defineOperation({
  name: 'invoicing.inbound.list',
  service: 'invoicing',
  summary: 'List imported e-invoices, newest first',
  paths: [INBOUND_PATH],
  select: { action: 'list' },
  write: false,
  request: listInboundRequest,
  reply: listInboundReply,
  rules: [{ field: 'date_from', rule: 'not after date_to' }],
});
export const getInbound = defineOperation({
  name: 'invoicing.inbound.get',
  service: 'invoicing',
  summary: 'One imported e-invoice, and with format "original" its file byte for byte',
  paths: [INBOUND_PATH],
  select: { action: 'get' },
  write: false,
  request: getInboundRequest,
  reply: getInboundReply,
});
export const acceptInbound = defineOperation({
  name: 'invoicing.inbound.accept',
  service: 'invoicing',
  summary: 'Make the bill of an import held for review, with the choices its review needs',
  paths: [INBOUND_PATH],
  select: { action: 'accept' },
  write: true,
  request: acceptInboundRequest,
  reply: inboundReply,
  rules: [
    { field: 'id', rule: 'an import of the organization with status needs_review' },
    { field: 'partner', rule: "a live vendor of the organization; required when the document's supplier matched no partner" },
    {
      field: 'line_products',
      rule: "each line a line id (BT-126) of the document, at most once, and a product of the catalog; a line's choice is kept in the supplier's product mapping under its seller item id (BT-155) and standard id (BT-157). Every reason the review named must be resolved, else 400 naming what still does not hold",
    },
  ],
});
export const rejectInbound = defineOperation({
  name: 'invoicing.inbound.reject',
  service: 'invoicing',
  summary: 'Close an import held for review without a bill',
  paths: [INBOUND_PATH],
  select: { action: 'reject' },
  write: true,
  request: rejectInboundRequest,
  reply: inboundReply,
  rules: [{ field: 'id', rule: 'an import of the organization with status needs_review' }],
});

export const inboundSettings = defineOperation({
  name: 'invoicing.inbound.settings',
  service: 'invoicing',
  summary: "The organization's settings for receiving e-invoices; the given ones are changed",
  paths: [INBOUND_PATH],
  select: { action: 'settings' },
  write: true,
  request: inboundSettingsRequest,
  reply: inboundSettingsReply,
  rules: [
    {
      field: 'inbound_create_partners',
      rule: 'default false. When true, a document whose supplier matches no partner creates a vendor from its seller (BT-27 name, BT-31 VAT id, BT-34 endpoint as peppol_id, BT-35..40 address), provided the seller states a VAT id or an endpoint; when false, such a document is held for review',
    },
  ],
});

export const inboundOperations = [importInbound, listInbound, getInbound, acceptInbound, rejectInbound, inboundSettings];

const inboundEventData = z.object({
  inbound_id: z.number().int(),
  status: z.enum(inboundStatuses),
  syntax: z.enum(inboundSyntaxes),
  invoice_number: z.string().nullable(),
  issue_date: z.string().nullable(),
  partner_id: z.number().int().nullable(),
  invoice_id: z.number().int().nullable(),
  sha256: z.string(),
});

export const inboundReceived = defineEvent({
  type: 'invoicing.inbound.received',
  summary: "A supplier's e-invoice was received and stored with its original",
  data: inboundEventData,
});
export const inboundBillCreated = defineEvent({
  type: 'invoicing.inbound.bill_created',
  summary: 'An imported e-invoice made a vendor bill',
  data: inboundEventData,
});
export const inboundNeedsReview = defineEvent({
  type: 'invoicing.inbound.needs_review',
  summary: 'An imported e-invoice is held for review, with its reasons',
  data: inboundEventData.extend({ review_reasons: z.array(z.string()) }),
});
export const inboundRejected = defineEvent({
  type: 'invoicing.inbound.rejected',
  summary: 'An imported e-invoice was rejected (a fatal rule, or by hand); it makes no bill',
  data: inboundEventData.extend({ reasons: z.array(z.string()) }),
});

export const inboundEvents = [inboundReceived, inboundBillCreated, inboundNeedsReview, inboundRejected];
