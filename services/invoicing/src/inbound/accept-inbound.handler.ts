import { invoicing } from '@bo/contracts';
import { readEInvoice } from '@bo/documents';
import { handler, recordEvent } from '@bo/runtime';
import { makeBill, planBill } from './bill-plan';
import { acceptChoices, productKeys } from './import-plan';
import { inboundRefusals } from './inbound-refusals';
import { inboundById, markBillCreated, rememberProductMapping, toInboundRecord } from './inbound.repository';

/**
 * Accept: an import held for review, decided again with the reviewer's choices (the supplier, a
 * product per line). What still does not hold is a 400 naming it, and nothing changes; else the bill
 * is made by the invoice creation's writer, and each chosen product is kept in the supplier's product
 * mapping under the line's seller item id and standard id, so the supplier's next document matches.
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
  apply: async (req, ctx, { bill, mapping }) => {
    const row = await inboundById(ctx.db, ctx.orgId, req.id, { lock: true });
    if (!row) throw inboundRefusals.importNotFound(req.id);
    if (row.status !== 'needs_review') throw inboundRefusals.acceptOfUnreviewableImport(row.id, row.status);
    await rememberProductMapping(ctx.db, ctx.orgId, bill.partnerId, mapping);
    const { id: invoiceId } = await makeBill(ctx, bill);
    await markBillCreated(ctx.db, row.id, bill.partnerId, invoiceId, bill.notes);
    const stored = (await inboundById(ctx.db, ctx.orgId, row.id))!;
    await recordEvent(ctx.db, invoicing.inboundBillCreated, ctx.orgId, {
      inbound_id: stored.id,
      status: stored.status,
      syntax: stored.syntax,
      invoice_number: stored.invoice_number,
      issue_date: stored.issue_date,
      partner_id: stored.partner_id,
      invoice_id: stored.invoice_id,
      sha256: stored.sha256.trim(),
    });
    return { message: 'Bill created', inbound: toInboundRecord(stored) };
  },
});
