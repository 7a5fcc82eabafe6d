import { z } from 'zod';
import { defineEvent } from '../events';
import { invoiceStatuses, invoiceTypes } from './schemas';

// Consumed by the partners ledger: field names and meanings are stable; fields may only be added.
// Amounts are positive; the consumer applies the sign for the invoice type.

/**
 * The invoice's version after the change the event tells: 1 when made, one more per change, so a
 * receiver (a webhook endpoint, another service) keeps the newest state whatever the order of
 * delivery. Optional: events recorded before invoices kept versions have none.
 */
export const invoiceVersion = z
  .number()
  .int()
  .min(1)
  .optional()
  .describe('The invoice version after this change: 1 when created, one more per change; the highest is the newest state');

/**
 * What the event's journal entry moved the partner's trade accounts (receivable, payable) by in the
 * accounting currency, debit minus credit: positive when the partner owes more. The partners ledger
 * moves the partner's accounting-currency balance by exactly this (docs/partners.md "Currencies").
 * Added field: absent on events recorded before, which the ledger weighs as it always did.
 */
export const tradeDelta = z
  .number()
  .optional()
  .describe(
    "What this posting's journal entry moved the partner's trade accounts by in the accounting currency (debit minus credit; positive: the partner owes more)",
  );

const invoiceRef = {
  invoice_id: z.number().int(),
  invoicenumber: z.string(),
  invoicetype: z.enum(invoiceTypes),
  partner_id: z.number().int(),
  invoicetotal: z.number(),
  sourcetype: z.string().nullable(),
  sourceid: z.string().nullable(),
  sourcenumber: z.string().nullable(),
  version: invoiceVersion,
};

export const invoiceCreated = defineEvent({
  type: 'invoicing.invoice.created',
  summary: 'An invoice was created (draft or proforma)',
  data: z.object({
    ...invoiceRef,
    invoicestatus: z.enum(invoiceStatuses),
    invoicedatetime: z.string(),
    subtotal: z.number().optional(),
    tax_amount: z.number().optional(),
    invoicedue: z.string().nullable().optional(),
    parent_id: z.number().int().nullable().optional(),
  }),
});
/** A posted line as catalog needs it to move stock (added field: consumers of older events see none). */
export const validatedLine = z.object({
  line_id: z.number().int(),
  product_id: z.string(),
  variant_id: z.string().nullable(),
  location_id: z.string().nullable(),
  quantity: z.number(),
});
export type ValidatedLine = z.infer<typeof validatedLine>;

export const invoiceValidated = defineEvent({
  type: 'invoicing.invoice.validated',
  summary: 'An invoice was posted; moves the partner balance by its total and stock by its lines',
  data: z.object({
    ...invoiceRef,
    journal_entry_id: z.number().int(),
    invoicedatetime: z.string(),
    invoicedue: z.string().nullable(),
    validated_at: z.string(),
    subtotal: z.number().optional(),
    tax_amount: z.number().optional(),
    lines: z.array(validatedLine).optional(),
    /** False: a credit note that returns no goods, so its lines move no stock (added field: absent means true). */
    restock: z.boolean().optional(),
    /** The document's currency (ISO 4217; null: it has none). Added field: absent on events recorded before. */
    currency: z.string().nullable().optional(),
    /** The total in the organization's accounting currency at the document's rate: its journal entry's trade line. Added field. */
    accounting_total: z.number().optional(),
    trade_delta: tradeDelta,
  }),
});
export const invoiceCancelled = defineEvent({
  type: 'invoicing.invoice.cancelled',
  summary: 'A draft or proforma invoice was cancelled',
  data: z.object({ ...invoiceRef, cancelled_at: z.string() }),
});
export const invoicePaymentRegistered = defineEvent({
  type: 'invoicing.invoice.payment_registered',
  summary: 'A payment was registered on an invoice; moves the partner balance back',
  data: z.object({
    ...invoiceRef,
    payment_id: z.number().int(),
    amount: z.number(),
    /** The document's currency, the payment's too (ISO 4217; null: none). Added field: absent on events recorded before. */
    currency: z.string().nullable().optional(),
    payment_date: z.string(),
    journal: z.string().nullable(),
    amount_paid: z.number(),
    due_amount: z.number(),
    journal_entry_id: z.number().int().optional(),
    trade_delta: tradeDelta,
  }),
});
export const invoicePaid = defineEvent({
  type: 'invoicing.invoice.paid',
  summary: 'Nothing is due on an invoice any more',
  data: z.object({ ...invoiceRef, paid_at: z.string() }),
});

export const invoicingEvents = [invoiceCreated, invoiceValidated, invoiceCancelled, invoicePaymentRegistered, invoicePaid];
