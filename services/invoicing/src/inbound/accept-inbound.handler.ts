import { invoicing } from '@bo/contracts';
import { readEInvoice } from '@bo/documents';
import { filledIn, handler, recordEvent, statementEvent, unlessRefused } from '@bo/runtime';
import { decideNewInvoice, newInvoiceRows } from '../invoice/decide-new-invoice';
import { createdEvent } from '../invoice/invoice.writer';
import { makeBill, planBill } from './bill-plan';
import { decideAcceptance } from './decide-acceptance';
import { acceptChoices, productKeys } from './import-plan';
import { inboundRefusals } from './inbound-refusals';
import { acceptanceAlone, inboundById, markBillCreated, readAcceptance, rememberProductMapping } from './inbound.repository';

/**
 * Accept: an import held for review, decided again with the reviewer's choices (the supplier, a
 * product per line). What still does not hold is a 400 naming it, and nothing changes; else the bill
 * is made by the invoice creation's writer, and each chosen product is kept in the supplier's product
 * mapping under the line's seller item id and standard id, so the supplier's next document matches.
 *
 * The bill is planned in gather (it asks catalog and the partners). Then read → decide → store, as a
 * rule as one statement (`alone`): the import read with no lock and the bill's ids drawn, the accept
 * judged (decideAcceptance) and the bill decided as a create decides it (decideNewInvoice), and the
 * bill, the mapping and the import's close stored together, the import only while it is the row read.
 * A fence on the supplier, a number taken, an import changed meanwhile or a refusal is judged again
 * under the import's lock (`apply`).
 */
export const acceptInboundHandler = handler(invoicing.acceptInbound, {
  gather: async (req, ctx) => {
    const row = await inboundById(ctx.db, ctx.orgId, req.id, { original: true });
    if (!row) throw inboundRefusals.importNotFound(req.id);
    if (row.status !== 'needs_review') throw inboundRefusals.acceptOfUnreviewableImport(row.id, row.status);
    const { invoice } = await readEInvoice(row.original);
    const choices = acceptChoices(invoice, { partner: req.partner, stored: row.partner_id, line_products: req.line_products });
    if ('errors' in choices) throw inboundRefusals.choicesRefused(choices.errors);
    const plan = await planBill(ctx, req.userid, invoice, row.validation.fatal, choices.supplier, { chosen: choices.chosen });
    if (!plan.bill) throw inboundRefusals.billStillCannotBeMade(plan.reasons);
    // One product per key: lines sharing a seller item id (or GTIN) are mapped once, and must agree.
    const byKey = new Map<string, number>();
    for (const line of invoice.lines) {
      const product = choices.chosen.get(line.id);
      if (product === undefined) continue;
      for (const key of productKeys(line)) {
        const earlier = byKey.get(key);
        if (earlier !== undefined && earlier !== Number(product)) throw inboundRefusals.twoProductsForOneKey(key, earlier, product);
        byKey.set(key, Number(product));
      }
    }
    const mapping = [...byKey].map(([key, product]) => ({ key, product }));
    return { bill: plan.bill, mapping };
  },
  alone: async (req, ctx, { bill, mapping }) => {
    const loaded = await readAcceptance(ctx.db, ctx.orgId, req.id, bill.lines.length);
    const accepted = loaded && unlessRefused(() => decideAcceptance(loaded.row, req.id, bill));
    const plan = accepted && unlessRefused(() => decideNewInvoice(ctx.orgId, bill.values, bill.lines, bill.defaults));
    if (!loaded || !accepted || !plan) return undefined;
    const made = newInvoiceRows(plan, loaded.drawn, plan.supplied ?? filledIn<string>());
    const acceptance = accepted(made.row.id);
    return {
      ...acceptanceAlone(plan, made, { inbound: acceptance.inbound, read: loaded.read, mapping }),
      events: [
        statementEvent(invoicing.invoiceCreated, ctx.orgId, createdEvent(made.row)),
        statementEvent(invoicing.inboundBillCreated, ctx.orgId, acceptance.event),
      ],
      reply: acceptance.reply,
    };
  },
  apply: async (req, ctx, { bill, mapping }) => {
    const accepted = decideAcceptance(await inboundById(ctx.db, ctx.orgId, req.id, { lock: true }), req.id, bill);
    await rememberProductMapping(ctx.db, ctx.orgId, bill.partnerId, mapping);
    const { id: invoiceId } = await makeBill(ctx, bill);
    const acceptance = accepted(invoiceId);
    await markBillCreated(ctx.db, req.id, bill.partnerId, invoiceId, bill.notes);
    await recordEvent(ctx.db, invoicing.inboundBillCreated, ctx.orgId, acceptance.event);
    return acceptance.reply;
  },
});
