import { sales } from '@bo/contracts';
import { handler, paginationOf } from '@bo/runtime';
import { readSettings } from '@bo/billing';
import { pageOfQuotations } from './quotation.repository';
import { toListRecord } from './quotation.record';

export const listQuotationsHandler = handler(sales.listQuotations, async (req, ctx) => {
  const now = (await readSettings(ctx.db, ctx.orgId)).today();
  const { rows, total } = await pageOfQuotations(ctx.db, ctx.orgId, req, now, req);
  return {
    message: rows.length ? 'Quotations retrieved successfully' : 'No quotations found',
    quotations: rows.map((r) => toListRecord(r, now)),
    pagination: paginationOf(req, total),
  };
});
