import { sales } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { readSettings } from '@bo/billing';
import { findQuotation, linesOf } from './quotation.repository';
import { toQuotationRecord } from './quotation.record';

/** A quotation read back whole, lines included, as create answered it (its status as of today). */
export const getQuotationHandler = handler(sales.getQuotation, (req, ctx) =>
  // One snapshot, so the header's totals and the lines agree even while a line is being added.
  ctx.db.transaction(
    async (trx) => {
      const q = await findQuotation(trx, ctx.orgId, req.quotation_id);
      return {
        message: 'Quotation retrieved successfully',
        quotation: toQuotationRecord(q, await linesOf(trx, q.id), (await readSettings(trx, ctx.orgId)).today()),
      };
    },
    { isolationLevel: 'repeatable read', readOnly: true },
  ),
);
