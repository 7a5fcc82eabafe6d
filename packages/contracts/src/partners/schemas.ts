import { z } from 'zod';
import {
  atMost,
  baseRequest,
  cashAmount,
  intId,
  notBlank,
  optionalText,
  pageRequest,
  paginationSchema,
  plainString,
  searchText,
  text,
} from '../fields';
import { isEmailAddress, optionalEmailPattern } from '../identifiers';
import { rule } from '../json-schema';
import { bicField, clearable, countryField, currencyField, ibanField, peppolIdField, profileRecord } from '../organization/schemas';

export const partnerTypes = ['customer', 'vendor', 'both'] as const;
export const partnerTypeField = z.enum(partnerTypes);

const email = plainString()
  .trim()
  // A longer text stops at the length (its check aborts): the pattern, quadratic on a text of dots, never sees it.
  .check(
    atMost(254),
    rule((v) => (v === '' || isEmailAddress(v) ? undefined : 'must be a valid email address'), { patterns: [optionalEmailPattern] }),
  );

/** An account of the partner's own: IBANs on bank statements name the partner (bank reconciliation). */
export const bankAccount = z.object({
  /** Stored in its electronic form: spaces removed, upper case. */
  iban: ibanField,
  bic: bicField.nullable().optional(),
  name: optionalText(140),
});
export const bankAccountRecord = z.object({ iban: z.string(), bic: z.string().nullable(), name: z.string().nullable() });
export type BankAccountRecord = z.infer<typeof bankAccountRecord>;

/** Writable partner fields (spec 2.5), all optional; create makes two of them required. */
const partnerFields = {
  partnername: text(200).trim().check(notBlank()),
  display_name: optionalText(200),
  partner_type: partnerTypeField,
  email: email.nullable().optional(),
  phone: optionalText(50),
  address: optionalText(1000, 'multiline'),
  // Structured address beside the free-text one (which keeps working); an empty string clears a field.
  address_line1: optionalText(200),
  address_line2: optionalText(200),
  city: optionalText(100),
  postal_code: optionalText(20),
  region: optionalText(100),
  country: z.union([z.literal(''), countryField, z.null()]).optional(),
  tax_number: optionalText(50),
  /** In the partner's currency (its documents'), to its minor unit: 2 decimals, 3 for KWD or BHD. */
  credit_limit: cashAmount({ min: 0 }).optional(),
  currency: currencyField.nullable().optional(),
  payment_terms: optionalText(500, 'multiline'),
  contact_person: optionalText(200),
  notes: optionalText(5000, 'multiline'),
  /** The partner's Peppol participant id, its electronic address (BT-49) on Peppol documents; null or "" clears it. */
  peppol_id: clearable(peppolIdField),
  /** The partner's own accounts, the whole list (an edit replaces it; `[]` clears it). */
  bank_accounts: z.array(bankAccount).max(20).optional(),
  /** Whether reminders (dunning) skip this partner's overdue invoices. */
  dunning_blocked: z.boolean().optional(),
};

export const createPartnerRequest = z.object({
  ...baseRequest,
  action: z.literal('create'),
  ...partnerFields,
});

export const editPartnerRequest = z.object({
  ...baseRequest,
  action: z.literal('edit'),
  partner_id: intId,
  ...partnerFields,
  partnername: partnerFields.partnername.optional(),
  partner_type: partnerTypeField.optional(),
});

export const deletePartnerRequest = z.object({
  ...baseRequest,
  action: z.literal('delete'),
  partner_id: intId,
});

export const listPartnersRequest = z.object({
  ...baseRequest,
  partner_type: partnerTypeField.optional(),
  search: searchText(),
  ...pageRequest,
});

export const partnerBalanceRequest = z.object({
  ...baseRequest,
  partner_id: intId,
  include_transactions: z.boolean().optional(),
});

export const partnerRecord = z.object({
  id: z.number().int(),
  orgid: z.number().int(),
  partnername: z.string(),
  display_name: z.string(),
  partner_type: partnerTypeField,
  email: z.string().nullable(),
  phone: z.string().nullable(),
  address: z.string().nullable(),
  address_line1: z.string().nullable(),
  address_line2: z.string().nullable(),
  city: z.string().nullable(),
  postal_code: z.string().nullable(),
  region: z.string().nullable(),
  country: z.string().nullable(),
  tax_number: z.string().nullable(),
  credit_limit: z.number(),
  balance: z.number(),
  committed: z.number(),
  currency: z.string().nullable(),
  payment_terms: z.string().nullable(),
  contact_person: z.string().nullable(),
  notes: z.string().nullable(),
  /** The Peppol participant id (`0208:0123456749`); null while none is set (an event from before the field reads as none). */
  peppol_id: z.string().nullable().default(null),
  /** The partner's own accounts, IBAN and BIC in electronic form (docs/partners.md "Bank accounts and dunning block"). */
  bank_accounts: z.array(bankAccountRecord),
  /** Whether reminders skip the partner's invoices. */
  dunning_blocked: z.boolean(),
  /** Increases by one with every change (create, edit, delete), so read models keep the newest record. */
  version: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type PartnerRecord = z.infer<typeof partnerRecord>;

/** `commitment`: a converted quotation whose invoice is not validated or cancelled yet (its amount is `committed`, not `balance`). */
export const partnerTransactionTypes = [
  'invoice',
  'credit_note',
  'bill',
  'vendor_credit',
  'payment',
  'commitment',
  // Cash application (docs/invoicing.md): allocations move no balance but settle documents.
  'allocation',
  'refund',
  'payment_void',
  'allocation_void',
  'write_off',
] as const;

export const partnerTransaction = z.object({
  id: z.number().int(),
  type: z.enum(partnerTransactionTypes),
  document_number: z.string(),
  date: z.string(),
  amount: z.number(),
  paid: z.number(),
  due: z.number(),
});

/** What the partner owes in one currency: the amounts of its documents and cash in that currency, as they are. */
export const partnerCurrencyBalance = z.object({
  /** ISO 4217; null for documents made before documents took a currency, in an organization that had none. */
  currency: z.string().nullable(),
  balance: z.number(),
  receivable: z.number(),
  committed: z.number(),
});

export const partnerBalanceView = z.object({
  id: z.number().int(),
  partnername: z.string(),
  display_name: z.string(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  balance: z.number(),
  /**
   * What the partner owes as a customer: the part of `balance` made by customer invoices and credit
   * notes to it (and their payments); vendor bills and vendor credits leave it alone. Equal to
   * `balance` for a partner that is only a customer.
   */
  receivable: z.number(),
  committed: z.number(),
  credit_limit: z.number(),
  /** credit_limit − balance (spec 2.5); a credit_limit of 0 means no limit, so nothing is refused whatever this says. */
  available_credit: z.number(),
  /** receivable + committed: what the partner will owe as a customer, weighed against credit_limit at validation (before the document's own total). */
  exposure: z.number(),
  currency: z.string().nullable(),
  /**
   * The balance per currency its documents and cash are in, each as it is; `balance`, `receivable`,
   * `committed` and `exposure` weigh them in the partner's currency (else the organization's) at the
   * rates their documents were posted at (docs/partners.md "Currencies").
   */
  balances: z.array(partnerCurrencyBalance),
});

export const partnerReply = z.object({ message: z.string(), partner: partnerRecord });

/**
 * Internal: what a document needs of its parties when it is issued (validated, sent) or rendered,
 * in one call: the organization's profile, the partner (null when it is deleted or unknown) and,
 * when asked, the partner's credit for the credit check.
 */
export const documentPartiesRequest = z.object({
  org_id: baseRequest.org_id,
  partner_id: intId,
  include_credit: z.boolean().optional(),
});
export const partnerCredit = partnerBalanceView
  .pick({ balance: true, receivable: true, credit_limit: true, available_credit: true })
  .extend({
    /** The currency of credit_limit: the partner's (absent: the organization's). */
    currency: z.string().nullable().optional(),
    /** The receivable per currency (absent: `receivable` is all in the limit's currency). */
    balances: z.array(partnerCurrencyBalance).optional(),
  });
export type PartnerCredit = z.infer<typeof partnerCredit>;
export const documentPartiesReply = z.object({
  message: z.string(),
  organization: profileRecord,
  partner: partnerRecord.nullable(),
  /** Present when asked for and the partner lives. */
  credit: partnerCredit.nullable(),
});
export const messageReply = z.object({ message: z.string() });
export const listPartnersReply = z.object({ message: z.string(), partners: z.array(partnerRecord), pagination: paginationSchema });
export const partnerBalanceReply = z.object({
  message: z.string(),
  partner: partnerBalanceView,
  transactions: z.array(partnerTransaction).optional(),
});

/**
 * Internal: what still ties a partner to sales or invoicing, asked by the partners service before a
 * delete (docs/partners.md). Lists are capped; the counts are complete.
 */
export const openDocumentsRequest = z.object({
  org_id: baseRequest.org_id,
  partner_id: intId,
  /** Asked by a delete about to commit: with none open, new documents for the partner are refused this long. */
  fence_ms: z.number().int().positive().max(600_000).optional(),
});
export const openDocument = z.object({
  kind: z.enum(['quotation', 'invoice', 'recurring_contract']),
  id: z.number().int(),
  number: z.string(),
  type: z.string(),
  status: z.string(),
});
export const openDocumentsReply = z.object({
  message: z.string(),
  open_documents: z.number().int(),
  active_contracts: z.number().int(),
  /** At most 20 of each kind, oldest first. */
  documents: z.array(openDocument),
});
export type OpenDocumentsReply = z.infer<typeof openDocumentsReply>;
