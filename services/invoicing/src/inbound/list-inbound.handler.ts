import { invoicing } from '@bo/contracts';
import { handler, paginationOf, selectPage } from '@bo/runtime';
import { inboundRefusals } from './inbound-refusals';
import { inboundFiltered, toInboundRecord, type InboundRow } from './inbound.repository';

/** Imports newest first, filtered by status, supplier and the day they were received. */
export const listInboundHandler = handler(invoicing.listInbound, async (req, ctx) => {
  if (req.date_from && req.date_to && req.date_from > req.date_to) throw inboundRefusals.receivedRangeReversed();
  const { rows, total } = await selectPage<InboundRow>(inboundFiltered(ctx.db, ctx.orgId, req), req, (page) => page.orderBy('id', 'desc'));
  return {
    message: rows.length ? 'Imports retrieved successfully' : 'No imports found',
    inbound: rows.map(toInboundRecord),
    pagination: paginationOf(req, total),
  };
});
