import { invoicing } from '@bo/contracts';
import { filledIn, handler, statementEvent, unlessRefused } from '@bo/runtime';
import { documentPartyOf, nowIn, readDocumentParty, resolveCatalogLines } from '@bo/billing';
import { lineField } from './create-input';
import { checkedCreditNoteLink } from './credit-note-link';
import { decideCreateInvoice } from './decide-create-invoice';
import { newInvoiceRows } from './decide-new-invoice';
import { NEW_DOCUMENT_PAYMENT_STATE, toInvoiceRecord } from './invoice.record';
import { newInvoiceDraws, newInvoiceDrawn, newInvoicePartsAlone } from './invoice.repository';
import { createdEvent, storeInvoicePlan } from './invoice.writer';

/**
 * Load → decide → store. The load asks catalog for the lines and reads the partner with the books'
 * settings (one statement, which also draws the ids a new invoice and its lines take and the time)
 * and a credit note's invoice, with no transaction open; the decision (decideCreateInvoice) is pure.
 * The store is one statement as a rule (`alone`): the partner's delete fence checked, the gapless
 * number taken, the invoice and its lines written as decided, with the event's outbox row and the
 * recorded reply. When a fence stands or the number is taken, or the request is refused, the usual
 * way (`apply`) runs it in a transaction, which answers what it finds.
 */
export const createInvoiceHandler = handler(invoicing.createInvoice, {
  gather: async (req, ctx) => {
    const lines = await resolveCatalogLines(ctx, req.line_items ?? [], lineField);
    // The partner, its currency and the books' settings in one read, with the ids drawn. Dates are
    // the organization's wall clock: a new invoice is dated now in its time zone.
    const reading = await readDocumentParty(ctx, req.partner, newInvoiceDraws(lines.length));
    const { partner, defaults } = await documentPartyOf(ctx, req.partner, reading);
    // The client's source fields are free text: they link nothing, except that a credit note names
    // the invoice it credits by them, and that link is checked before it is kept.
    const note = { invoicetype: req.invoicetype, partner_id: req.partner, sourcetype: req.sourcetype, sourceid: req.sourceid };
    const credited = await checkedCreditNoteLink(ctx.db, ctx.orgId, note);
    return { lines, defaults, now: nowIn(defaults.time_zone), partner, credited, drawn: newInvoiceDrawn(reading.beside) };
  },
  // It asks catalog and reads (a partner unknown to the directory is fetched and kept there): the
  // store holds the operation key, no claim of its own is written before.
  readOnlyGather: true,
  alone: (req, ctx, state) => {
    const plan = unlessRefused(() => decideCreateInvoice(req, state, ctx));
    if (!plan) return undefined;
    const stored = newInvoiceRows(plan, state.drawn, plan.supplied ?? filledIn<string>());
    return {
      ...newInvoicePartsAlone(plan, stored, req.partner),
      events: [statementEvent(invoicing.invoiceCreated, ctx.orgId, createdEvent(stored.row))],
      reply: createdReply(toInvoiceRecord(stored.row, stored.lines, state.now.date, NEW_DOCUMENT_PAYMENT_STATE)),
    };
  },
  apply: async (req, ctx, state) => {
    const plan = decideCreateInvoice(req, state, ctx);
    const created = await storeInvoicePlan(ctx.db, plan, { fencedPartner: req.partner });
    return createdReply(toInvoiceRecord(created.row, created.lines, state.now.date, NEW_DOCUMENT_PAYMENT_STATE));
  },
});

function createdReply(invoice: invoicing.InvoiceRecord) {
  return {
    message: invoice.recurring.enabled ? 'Recurring invoice created successfully' : 'Invoice created successfully',
    invoice,
  };
}
