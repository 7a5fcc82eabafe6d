import { sales } from '@bo/contracts';
import { findPartner, handler, toNumber } from '@bo/runtime';
import { findQuotation } from './quotation.repository';

/** The stored totals are kept up to date under the row lock by create and add_line. */
export const quotationTotalHandler = handler(sales.quotationTotal, async (req, ctx) => {
  const q = await findQuotation(ctx.db, ctx.orgId, req.quotation_id);
  return {
    message: 'Quotation total calculated successfully',
    quotation_id: q.id,
    subtotal: toNumber(q.subtotal),
    tax_amount: toNumber(q.tax_amount),
    discount_total: toNumber(q.discount_total),
    quotation_total: toNumber(q.total),
    // Every quotation's partner is in the read model (create put it there); a deleted one keeps its currency.
    currency: (await findPartner(ctx.db, ctx.orgId, q.partner_id))?.currency ?? null,
  };
});
