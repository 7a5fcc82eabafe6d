import type { invoicing, RequestOf } from '@bo/contracts';
import { parseDateTime } from '@bo/kernel';
import { requirePartnerRole, type DocumentDefaults, type LivePartner, type LocalNow, type ResolvedLine } from '@bo/billing';
import { newInvoiceFrom } from './create-input';
import { creditedCurrency, type CreditedInvoice } from './credit-note-link';
import { decideNewInvoice, type NewInvoicePlan } from './decide-new-invoice';

export type CreateInvoiceRequest = RequestOf<typeof invoicing.createInvoice>;

/**
 * What creating an invoice decides on, loaded before its transaction: the lines checked against the
 * catalog, the defaults of the organization and partner (currency, rounding, time zone), the
 * organization's wall clock, the partner as the directory has it, and the invoice a credit note
 * credits (checked, or null when the note names none).
 */
export interface CreateInvoiceState {
  lines: ResolvedLine[];
  defaults: DocumentDefaults;
  now: LocalNow;
  partner: Pick<LivePartner, 'id' | 'partner_type'>;
  credited: CreditedInvoice | null;
}

/**
 * Decides a new invoice: the request's columns (newInvoiceFrom: dates, line limits, a recurring
 * contract's first run), the partner's role for the invoice's type, a credit note in the currency
 * of the invoice it credits, then its currency, rate and taxes (decideNewInvoice). Pure: a refusal
 * is thrown; the plan is what storeNewInvoice writes.
 */
export function decideCreateInvoice(
  req: CreateInvoiceRequest,
  state: CreateInvoiceState,
  ctx: { orgId: number; userId?: string },
): NewInvoicePlan {
  const values = newInvoiceFrom(req, state.lines, ctx.userId, parseDateTime(state.now.dateTime));
  requirePartnerRole(state.partner, req.invoicetype);
  const currency = state.credited ? creditedCurrency(values, state.credited) : null;
  return decideNewInvoice(
    ctx.orgId,
    { ...values, credits_invoice_id: state.credited?.id ?? null, ...(currency ? { currency } : {}) },
    state.lines,
    state.defaults,
  );
}
