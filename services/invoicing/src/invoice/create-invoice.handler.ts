import { invoicing } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { documentPartyAndDefaults, nowIn, resolveCatalogLines } from '@bo/billing';
import { lineField } from './create-input';
import { checkedCreditNoteLink } from './credit-note-link';
import { decideCreateInvoice } from './decide-create-invoice';
import { NEW_DOCUMENT_PAYMENT_STATE, toInvoiceRecord } from './invoice.record';
import { storeInvoicePlan } from './invoice.writer';

/**
 * Load → decide → store. The load asks catalog for the lines and reads the partner with the books'
 * settings (one statement) and a credit note's invoice, with no transaction open; the decision
 * (decideCreateInvoice) is pure; the store is one statement that checks the partner's delete fence, takes the gapless
 * number and writes the invoice and its lines, then the runtime's one statement for the event's
 * outbox row and the recorded reply, with the COMMIT.
 */
export const createInvoiceHandler = handler(invoicing.createInvoice, {
  gather: async (req, ctx) => {
    const lines = await resolveCatalogLines(ctx, req.line_items ?? [], lineField);
    // The partner, its currency and the books' settings in one read. Dates are the organization's
    // wall clock: a new invoice is dated now in its time zone.
    const { partner, defaults } = await documentPartyAndDefaults(ctx, req.partner);
    // The client's source fields are free text: they link nothing, except that a credit note names
    // the invoice it credits by them, and that link is checked before it is kept.
    const note = { invoicetype: req.invoicetype, partner_id: req.partner, sourcetype: req.sourcetype, sourceid: req.sourceid };
    const credited = await checkedCreditNoteLink(ctx.db, ctx.orgId, note);
    return { lines, defaults, now: nowIn(defaults.time_zone), partner, credited };
  },
  // It asks catalog and reads (a partner unknown to the directory is fetched and kept there): the
  // transaction holds the operation key, no claim of its own is written before.
  readOnlyGather: true,
  apply: async (req, ctx, state) => {
    const plan = decideCreateInvoice(req, state, ctx);
    const created = await storeInvoicePlan(ctx.db, plan, { fencedPartner: req.partner });
    const invoice = toInvoiceRecord(created.row, created.lines, state.now.date, NEW_DOCUMENT_PAYMENT_STATE);
    return {
      message: invoice.recurring.enabled ? 'Recurring invoice created successfully' : 'Invoice created successfully',
      invoice,
    };
  },
});
