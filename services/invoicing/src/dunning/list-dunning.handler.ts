import { invoicing } from '@bo/contracts';
import { handler, paginationOf } from '@bo/runtime';
import { letterRecord, pageOfLetters } from './dunning.repository';

/** The letters sent, newest first, by invoice, partner or level. */
export const dunningListHandler = handler(invoicing.dunningList, async (req, ctx) => {
  const { rows, total } = await pageOfLetters(ctx.db, ctx.orgId, req, req);
  return {
    message: rows.length ? 'Letters retrieved successfully' : 'No letters found',
    letters: rows.map((r) => letterRecord(r, r.invoicenumber)),
    pagination: paginationOf(req, total),
  };
});
