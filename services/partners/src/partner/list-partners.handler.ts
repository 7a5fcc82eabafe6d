import { partners } from '@bo/contracts';
import { handler, likeContains, paginationOf, selectPage } from '@bo/runtime';
import { toPartnerRecord, typesMatching, type PartnerRow } from './partner.record';

export const listPartnersHandler = handler(partners.listPartners, async (req, ctx) => {
  const filtered = ctx
    .db<PartnerRow>('partners')
    .where({ org_id: ctx.orgId })
    .whereNull('deleted_at')
    .modify((q) => {
      if (req.partner_type) q.whereIn('partner_type', typesMatching(req.partner_type));
      const search = req.search?.trim();
      if (search) {
        const pattern = likeContains(search);
        q.where((w) => {
          for (const column of ['partnername', 'display_name', 'email', 'phone']) {
            w.orWhereRaw(`?? ilike ? escape '\\'`, [column, pattern]);
          }
        });
      }
    });
  const { rows, total } = await selectPage<PartnerRow>(filtered, req, [{ column: 'id', order: 'desc' }]);
  return {
    message: rows.length ? 'Partners retrieved successfully' : 'No partners found',
    partners: rows.map(toPartnerRecord),
    pagination: paginationOf(req, total),
  };
});
