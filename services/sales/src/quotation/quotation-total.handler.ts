import { sales } from '@bo/contracts';
import { toNumber } from '@bo/kernel';
import { handler } from '@bo/runtime';
import { toBreakdownRecord } from '@bo/billing';
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
    // The quotation's own, stored when it was made: a later change of the partner's currency does not reprice it.
    currency: q.currency,
    vat_total: toNumber(q.vat_total),
    rounding_amount: toNumber(q.rounding_amount),
    tax_breakdown: q.tax_breakdown.map(toBreakdownRecord),
  };
});
