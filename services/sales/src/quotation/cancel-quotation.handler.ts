import { sales } from '@bo/contracts';
import { actor } from '../actor';
import { handler, today } from '@bo/runtime';
import { checkCancel } from './quotation-status';
import { enforce, findQuotation, statusOf } from './quotation.repository';

export const cancelQuotationHandler = handler(sales.cancelQuotation, async (req, ctx) => {
  return ctx.db.transaction(async (trx) => {
    // Locked so a cancel and a conversion in flight cannot both win.
    const q = await findQuotation(trx, ctx.orgId, req.quotation_id, { lock: true });
    enforce(checkCancel(statusOf(q, today())), q);
    await trx('quotations').where({ id: q.id }).update({ status: 'cancelled', cancelled_at: trx.fn.now(), updated_by: actor(req, ctx), updated_at: trx.fn.now() });
    return { message: `Quotation ${q.quotation_number} cancelled successfully` };
  });
});
