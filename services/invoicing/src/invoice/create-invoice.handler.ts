import { invoicing } from '@bo/contracts';
import { parseDateTime } from '@bo/kernel';
import {
  assertNotFenced,
  documentDefaults,
  handler,
  nowIn,
  requireLivePartner,
  requirePartnerRole,
  resolveCatalogLines,
} from '@bo/runtime';
import { lineField, newInvoiceFrom } from './create-input';
import { checkedCreditLink, creditedCurrency } from './credit-link';
import { toInvoiceRecord } from './invoice.record';
import { insertInvoice } from './invoice.writer';

/** Asks catalog and partners first, with no transaction open; the partner's delete fence is checked in the transaction. */
export const createInvoiceHandler = handler(invoicing.createInvoice, {
  gather: async (req, ctx) => {
    const lines = await resolveCatalogLines(ctx, req.line_items ?? [], lineField);
    // Dates are the organization's wall clock: a new invoice is dated now in its time zone. Read
    // with the currency and rounding the invoice takes, which apply uses as read here.
    const defaults = await documentDefaults(ctx.db, ctx.orgId, req.partner);
    const now = nowIn(defaults.time_zone);
    const values = newInvoiceFrom(req, lines, ctx.userId, parseDateTime(now.dateTime));
    requirePartnerRole(await requireLivePartner(ctx, req.partner), req.invoicetype);
    // The client's source fields are free text: they link nothing, except that a credit note names
    // the invoice it credits by them, and that link is checked before it is kept. Such a note is in
    // that invoice's currency.
    const credited = await checkedCreditLink(ctx.db, ctx.orgId, values);
    const currency = credited ? creditedCurrency(values, credited) : null;
    return {
      lines,
      defaults,
      today: now.date,
      values: { ...values, credits_invoice_id: credited?.id ?? null, ...(currency ? { currency } : {}) },
    };
  },
  apply: async (req, ctx, { lines, defaults, today, values }) => {
    await assertNotFenced(ctx.db, ctx.orgId, req.partner);
    const created = await insertInvoice(ctx.db, ctx.orgId, values, lines, defaults);
    const invoice = toInvoiceRecord(created.row, created.lines, today);
    return {
      message: invoice.recurring.enabled ? 'Recurring invoice created successfully' : 'Invoice created successfully',
      invoice,
    };
  },
});
