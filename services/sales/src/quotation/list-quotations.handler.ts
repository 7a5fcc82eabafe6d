import { sales } from '@bo/contracts';
import { handler, likeContains, organizationToday, paginationOf, selectPage } from '@bo/runtime';
import { EFFECTIVE_STATUS_SQL } from './quotation.repository';
import { toListRecord, type ListRow } from './quotation.record';

export const listQuotationsHandler = handler(sales.listQuotations, async (req, ctx) => {
  const now = await organizationToday(ctx.db, ctx.orgId);
  const filtered = ctx
    .db('quotations as q')
    .leftJoin('partner_directory as p', (j) => j.on('p.org_id', 'q.org_id').andOn('p.id', 'q.partner_id'))
    .where('q.org_id', ctx.orgId)
    .modify((query) => {
      // The filter uses the status readers see, so expired quotations are found as expired only.
      if (req.status) query.whereRaw(`${EFFECTIVE_STATUS_SQL} = ?`, [now, req.status]);
      if (req.quotation_type) query.where('q.quotation_type', req.quotation_type);
      const search = req.search_key?.trim();
      if (search) {
        const pattern = likeContains(search);
        query.where((w) => {
          for (const column of ['q.quotation_number', 'p.partnername', 'p.display_name'])
            w.orWhereRaw(`?? ilike ? escape '\\'`, [column, pattern]);
        });
      }
    });
  // The page and its total in one statement, so pagination never disagrees with the rows shown.
  const { rows, total } = await selectPage<ListRow>(filtered.select('q.*', 'p.partnername', 'p.display_name'), req, (page) =>
    page.orderBy('q.id', 'desc'),
  );
  return {
    message: rows.length ? 'Quotations retrieved successfully' : 'No quotations found',
    quotations: rows.map((r) => toListRecord(r, now)),
    pagination: paginationOf(req, total),
  };
});
