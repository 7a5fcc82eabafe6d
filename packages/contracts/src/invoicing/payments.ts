// Cash application (docs/invoicing.md, "Cash application"): payments as records with allocations,
// credit notes as credit, refunds, voids and write-offs. Field names are the public contract of issue 31.
import { z } from 'zod';
import { defineEvent } from '../events';
import {
  baseRequest,
  cashAmount,
  cashAmountRule,
  dateField,
  exchangeRate,
  intId,
  optionalText,
  pageRequest,
  paginationSchema,
} from '../fields';
import { defineOperation } from '../operation';
import { currencyField } from '../organization/schemas';
import { invoiceVersion, tradeDelta } from './events';
import { invoiceTypes, settledDocument } from './schemas';

/** `in`: money from a customer, settling its invoices (`invoiceout`); `out`: money to a vendor, settling its bills (`invoicein`). */
export const paymentDirections = ['in', 'out'] as const;
export type PaymentDirection = (typeof paymentDirections)[number];
export const paymentStatuses = ['posted', 'voided'] as const;

const PAYMENTS_PATH = '/invoicing/payments';

export const allocationInput = z.object({ invoice_id: intId, amount: cashAmount({ positive: true }) });
const allocationsInput = z.array(allocationInput).max(100, 'must have at most 100 allocations');

export const createPaymentRequest = z.object({
  ...baseRequest,
  action: z.literal('create'),
  partner: intId,
  amount: cashAmount({ positive: true }),
  currency: currencyField,
  /** Default: the organization's today. */
  payment_date: dateField.optional(),
  /** How the money moved (bank_transfer, card, cash, cheque ...): free text. */
  method: optionalText(50),
  /** The bank's or the partner's reference. */
  reference: optionalText(200),
  direction: z.enum(paymentDirections),
  /** The bank account (journal) the money went through; default `Bank`. */
  journal: optionalText(100),
  allocations: allocationsInput.optional(),
  /**
   * Units of the accounting currency per 1 unit of `currency` the money was worth; default the rate
   * table's on `payment_date`, else the rate the documents it settles share (docs/invoicing.md
   * "Payments in another currency").
   */
  exchange_rate: exchangeRate().optional(),
});

export const allocatePaymentRequest = z.object({
  ...baseRequest,
  action: z.literal('allocate'),
  /** The source: a posted payment ... */
  payment_id: intId.optional(),
  /** ... or a validated credit note (`creditout` for customer invoices, `creditin` for vendor bills). */
  credit_note_id: intId.optional(),
  allocations: allocationsInput.min(1, 'must have at least one allocation'),
  /** Default: the organization's today. */
  allocation_date: dateField.optional(),
});

export const refundPaymentRequest = z.object({
  ...baseRequest,
  action: z.literal('refund'),
  /** The credit paid out: a payment's unallocated amount ... */
  payment_id: intId.optional(),
  /** ... or a validated credit note's. */
  credit_note_id: intId.optional(),
  amount: cashAmount({ positive: true }),
  /** Default: the organization's today. */
  refund_date: dateField.optional(),
  method: optionalText(50),
  reference: optionalText(200),
  journal: optionalText(100),
  /**
   * Units of the accounting currency per 1 unit of the credit's currency the money paid out was
   * worth; default the rate table's on `refund_date`, else the rate the credit was booked at
   * (docs/invoicing.md "Payments in another currency").
   */
  exchange_rate: exchangeRate().optional(),
});

export const voidPaymentRequest = z.object({
  ...baseRequest,
  action: z.literal('void'),
  payment_id: intId,
  reason: optionalText(500),
  /** The date of the reversal entry; default the organization's today. */
  void_date: dateField.optional(),
});

export const listPaymentsRequest = z.object({
  ...baseRequest,
  action: z.literal('list'),
  partner: intId.optional(),
  direction: z.enum(paymentDirections).optional(),
  status: z.enum(paymentStatuses).optional(),
  ...pageRequest,
});

export const getPaymentRequest = z.object({ ...baseRequest, action: z.literal('get'), payment_id: intId });

export const writeOffRequest = z.object({
  ...baseRequest,
  id: intId,
  write_off: z.literal(true),
  reason: optionalText(500),
  /** The date of the bad-debt entry; default the organization's today. */
  write_off_date: dateField.optional(),
});

/** How money moved, on a payment or a refund record: the method, the reference, the bank account (journal). */
const paidThrough = { method: z.string().nullable(), reference: z.string().nullable(), journal: z.string() };
/** The source of applied cash, in records and events: a payment or a credit note, the other id null. */
const sourceIds = { payment_id: z.number().int().nullable(), credit_note_id: z.number().int().nullable() };
/** What an allocation and a refund record both start with: their id and where the money came from. */
const appliedFrom = { id: z.number().int(), source: z.enum(['payment', 'credit_note']), ...sourceIds };

export const allocationRecord = z.object({
  ...appliedFrom,
  invoice_id: z.number().int(),
  invoicenumber: z.string(),
  amount: z.number(),
  allocation_date: z.string(),
  /** A voided payment's allocations stay, voided: nothing is deleted. */
  status: z.enum(['active', 'voided']),
  /** The transfer between trade accounts, when the source's differs from the invoice's; else null. */
  journal_entry_id: z.number().int().nullable(),
});
export type AllocationRecord = z.infer<typeof allocationRecord>;

export const refundRecord = z.object({
  ...appliedFrom,
  partner: z.number().int(),
  amount: z.number(),
  currency: z.string().nullable(),
  /** The rate the money was paid out at (null: as it is, in the accounting currency or with none on record). */
  exchange_rate: z.number().nullable(),
  /** What the money paid out was worth in the accounting currency: its bank line. */
  accounting_amount: z.number(),
  refund_date: z.string(),
  ...paidThrough,
  journal_entry_id: z.number().int(),
});
export type RefundRecord = z.infer<typeof refundRecord>;

export const paymentRecord = z.object({
  id: z.number().int(),
  partner: z.number().int(),
  direction: z.enum(paymentDirections),
  amount: z.number(),
  currency: z.string().nullable(),
  payment_date: z.string(),
  ...paidThrough,
  status: z.enum(paymentStatuses),
  /** The rate it was posted at (accounting currency per unit); null when posted as it is (in the accounting currency, or none on record). */
  exchange_rate: z.number().nullable(),
  /** Its amount's worth in the accounting currency, as the bank line booked it. */
  accounting_amount: z.number(),
  /** Σ active allocations. */
  allocated: z.number(),
  /** Σ refunds of its unallocated amount. */
  refunded: z.number(),
  /** amount − allocated − refunded: the partner's credit (an advance) from this payment. */
  unallocated: z.number(),
  journal_entry_id: z.number().int(),
  void_journal_entry_id: z.number().int().nullable(),
  void_reason: z.string().nullable(),
  voided_at: z.string().nullable(),
  allocations: z.array(allocationRecord),
  refunds: z.array(refundRecord),
  created_at: z.string(),
});
export type PaymentRecord = z.infer<typeof paymentRecord>;

export const paymentReplyBody = z.object({ message: z.string(), payment: paymentRecord, invoices: z.array(settledDocument) });
export const allocateReply = z.object({
  message: z.string(),
  allocations: z.array(allocationRecord),
  /** The source after the allocation: the payment (`payment_id`) ... */
  payment: paymentRecord.optional(),
  /** ... or the credit note (`credit_note_id`), its `due_amount` being its unallocated credit. */
  credit_note: settledDocument.optional(),
  invoices: z.array(settledDocument),
});
export const refundReply = z.object({
  message: z.string(),
  refund: refundRecord,
  payment: paymentRecord.optional(),
  credit_note: settledDocument.optional(),
});
export const listPaymentsReply = z.object({ message: z.string(), payments: z.array(paymentRecord), pagination: paginationSchema });
export const getPaymentReply = z.object({ message: z.string(), payment: paymentRecord });
export const writeOffReply = z.object({
  message: z.string(),
  invoice: settledDocument.extend({ written_off_amount: z.number(), journal_entry_id: z.number().int() }),
});

/** The lock date rule of an operation posting on `field` (docs/invoicing.md "Lock date"). */
export const lockDateRule = (field: string) =>
  ({ field, rule: "after the organization's lock_date (its profile; the books are closed up to and including it)" }) as const;
const paymentRateRule = {
  field: 'exchange_rate',
  rule: "given, in the rate table on payment_date, or shared by the documents settled, when the currency is not the organization's accounting currency; 1 when it is",
} as const;

const sourceRules = [
  { field: 'payment_id', rule: 'exactly one of payment_id and credit_note_id; a posted payment of the organization' },
  { field: 'credit_note_id', rule: 'a validated credit note (creditout, creditin) of the organization' },
] as const;
const allocationRules = [
  { field: 'currency', rule: "the source's currency (a payment's, a credit note's) is each allocated document's" },
  {
    field: 'allocations',
    rule: "each an open or overdue invoice of the same organization, partner and direction (in: invoiceout, out: invoicein; a creditout's credit settles invoiceout, a creditin's invoicein), in the payment's currency, at most once per request; each amount at most the invoice's due amount and in its currency's minor unit, together at most the source's unallocated amount",
  },
] as const;

export const createPayment = defineOperation({
  name: 'invoicing.payment.create',
  service: 'invoicing',
  summary: 'Record a payment received or sent, optionally allocated to invoices; the rest is the partner’s credit',
  paths: [PAYMENTS_PATH],
  select: { action: 'create' },
  write: true,
  request: createPaymentRequest,
  reply: paymentReplyBody,
  rules: [
    { field: 'partner', rule: 'a partner of the organization' },
    { field: 'amount', rule: 'at least the sum of the allocations' },
    cashAmountRule('amount'),
    ...allocationRules,
    paymentRateRule,
    lockDateRule('payment_date'),
  ],
});
export const allocatePayment = defineOperation({
  name: 'invoicing.payment.allocate',
  service: 'invoicing',
  summary: "Allocate a payment's or a credit note's unallocated amount to open documents of the same partner",
  paths: [PAYMENTS_PATH],
  select: { action: 'allocate' },
  write: true,
  request: allocatePaymentRequest,
  reply: allocateReply,
  rules: [...sourceRules, ...allocationRules, lockDateRule('allocation_date')],
});
export const refundPayment = defineOperation({
  name: 'invoicing.payment.refund',
  service: 'invoicing',
  summary: "Pay out (part of) a payment's or a credit note's unallocated credit",
  paths: [PAYMENTS_PATH],
  select: { action: 'refund' },
  write: true,
  request: refundPaymentRequest,
  reply: refundReply,
  rules: [
    ...sourceRules,
    { field: 'amount', rule: "at most the source's unallocated amount" },
    cashAmountRule('amount'),
    { field: 'exchange_rate', rule: "1 when the credit is in the organization's accounting currency" },
    lockDateRule('refund_date'),
  ],
});
export const voidPayment = defineOperation({
  name: 'invoicing.payment.void',
  service: 'invoicing',
  summary: 'Reverse a payment, its allocations and its journal entry (a reversal entry; nothing is deleted)',
  paths: [PAYMENTS_PATH],
  select: { action: 'void' },
  write: true,
  request: voidPaymentRequest,
  reply: paymentReplyBody,
  rules: [
    { field: 'payment_id', rule: 'a posted payment, not voided, with no refunds, none of whose invoices is written off' },
    lockDateRule('void_date'),
  ],
});
export const listPayments = defineOperation({
  name: 'invoicing.payment.list',
  service: 'invoicing',
  summary: 'List payments with their allocations and refunds, newest first',
  paths: [PAYMENTS_PATH],
  select: { action: 'list' },
  write: false,
  request: listPaymentsRequest,
  reply: listPaymentsReply,
});
export const getPayment = defineOperation({
  name: 'invoicing.payment.get',
  service: 'invoicing',
  summary: 'One payment with its allocations and refunds',
  paths: [PAYMENTS_PATH],
  select: { action: 'get' },
  write: false,
  request: getPaymentRequest,
  reply: getPaymentReply,
});
export const writeOffInvoice = defineOperation({
  name: 'invoicing.invoice.write_off',
  service: 'invoicing',
  summary: 'Write off what is still due on an open or overdue customer invoice as a bad debt',
  paths: ['/invoicing/invoice/new'],
  domainWide: true,
  select: { flag: 'write_off' },
  write: true,
  request: writeOffRequest,
  reply: writeOffReply,
  rules: [{ field: 'id', rule: 'an open or overdue customer invoice (invoiceout) with something due' }, lockDateRule('write_off_date')],
});

export const paymentOperations = [createPayment, allocatePayment, refundPayment, voidPayment, listPayments, getPayment, writeOffInvoice];

// Events: consumed by the partners ledger, applied once per payment, refund, void and write-off.
// Amounts are positive; `direction` says which way the money went, `side` whether it settles what the
// partner owes as a customer (its receivable) or as a vendor.
export const ledgerSides = ['customer', 'vendor'] as const;
const side = z.enum(ledgerSides);
/** How a payment, refund or void moves the partner's balance: which way the money went, which side it settles, how much. */
const balanceMove = { direction: z.enum(paymentDirections), side, amount: z.number() };
const allocationEvent = z.object({
  allocation_id: z.number().int(),
  invoice_id: z.number().int(),
  invoicenumber: z.string(),
  invoicetype: z.enum(invoiceTypes),
  amount: z.number(),
  /** The invoice's version once this allocation (or its reversal) settled it, as invoice events carry it. */
  invoice_version: invoiceVersion,
  /** An allocation posted by an entry of its own (allocate, a credit note's settlement): that entry's trade move (a realized exchange difference). */
  trade_delta: tradeDelta,
});

export const paymentCreated = defineEvent({
  type: 'invoicing.payment.created',
  summary: "A payment was recorded; moves the partner's balance by its amount (its unallocated rest is the partner's credit)",
  data: z.object({
    payment_id: z.number().int(),
    partner_id: z.number().int(),
    ...balanceMove,
    currency: z.string().nullable(),
    payment_date: z.string(),
    journal_entry_id: z.number().int(),
    trade_delta: tradeDelta,
    allocations: z.array(allocationEvent),
  }),
});
export const paymentAllocated = defineEvent({
  type: 'invoicing.payment.allocated',
  summary: "A payment's or credit note's unallocated amount was allocated to documents; moves no balance",
  data: z.object({
    partner_id: z.number().int(),
    ...sourceIds,
    credit_note_number: z.string().nullable(),
    /** The currency of the credit allocated, its documents' too (ISO 4217; null: none). Added field: absent on events recorded before. */
    currency: z.string().nullable().optional(),
    allocation_date: z.string(),
    allocations: z.array(allocationEvent),
  }),
});
export const paymentRefunded = defineEvent({
  type: 'invoicing.payment.refunded',
  summary: "A partner's unallocated credit was paid out; moves its balance back",
  data: z.object({
    refund_id: z.number().int(),
    partner_id: z.number().int(),
    ...sourceIds,
    /** `direction` `out`: paid to a customer (its credit was receivable-side); `in`: a vendor paid back. */
    ...balanceMove,
    /** The currency of the money moved (ISO 4217; null: none). Added field: absent on events recorded before. */
    currency: z.string().nullable().optional(),
    refund_date: z.string(),
    journal_entry_id: z.number().int(),
    trade_delta: tradeDelta,
  }),
});
export const paymentVoided = defineEvent({
  type: 'invoicing.payment.voided',
  summary: 'A payment was reversed with its allocations; moves the partner balance back',
  data: z.object({
    payment_id: z.number().int(),
    partner_id: z.number().int(),
    ...balanceMove,
    /** The currency of the money moved (ISO 4217; null: none). Added field: absent on events recorded before. */
    currency: z.string().nullable().optional(),
    void_date: z.string(),
    journal_entry_id: z.number().int(),
    trade_delta: tradeDelta,
    /** The allocations reversed. */
    allocations: z.array(allocationEvent),
  }),
});
export const invoiceWrittenOff = defineEvent({
  type: 'invoicing.invoice.written_off',
  summary: 'What was still due on a customer invoice was written off as a bad debt; moves the partner balance down',
  data: z.object({
    invoice_id: z.number().int(),
    invoicenumber: z.string(),
    invoicetype: z.enum(invoiceTypes),
    partner_id: z.number().int(),
    invoicetotal: z.number(),
    amount: z.number(),
    /** The currency of the money moved (ISO 4217; null: none). Added field: absent on events recorded before. */
    currency: z.string().nullable().optional(),
    write_off_date: z.string(),
    reason: z.string().nullable(),
    journal_entry_id: z.number().int(),
    trade_delta: tradeDelta,
    version: invoiceVersion,
  }),
});

export const paymentEvents = [paymentCreated, paymentAllocated, paymentRefunded, paymentVoided, invoiceWrittenOff];
