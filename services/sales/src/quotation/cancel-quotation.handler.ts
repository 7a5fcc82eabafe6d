import { sales } from '@bo/contracts';
import { actor } from '../actor';
import { handler } from '@bo/runtime';
import { readSettings } from '@bo/billing';
import { checkCancel } from './quotation-status';
import { findQuotation, markCancelled } from './quotation.repository';
import { conversionUnfinished, enforce, statusOf } from './quotation-rules';

export const cancelQuotationHandler = handler(sales.cancelQuotation, async (req, ctx) => {
  return ctx.db.transaction(async (trx) => {
    // A conversion freezes the quotation (under this lock) before it asks invoicing for the invoice,
    // so a cancel either comes first and the conversion is refused, or finds it frozen and is
    // refused itself: never both, and never an invoice left behind for a cancelled quotation.
    const q = await findQuotation(trx, ctx.orgId, req.quotation_id, { lock: true });
    enforce(checkCancel(statusOf(q, (await readSettings(trx, ctx.orgId)).today()), conversionUnfinished(q)), q);
    await markCancelled(trx, q.id, actor(req, ctx));
    return { message: `Quotation ${q.quotation_number} cancelled successfully` };
  });
});
