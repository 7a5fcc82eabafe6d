import { partners } from '@bo/contracts';
import { handler, likeContains, paginationOf, selectRecordPage, type Knex } from '@bo/runtime';
import { partnerRecordFields, typesMatching } from './partner.record';

/** Columns a search matches, each as `ilike` with `\` escaping the pattern's own wildcards. */
const SEARCHED = ['partnername', 'display_name', 'email', 'phone'];
const SEARCH_SQL = ` and (${SEARCHED.map((column) => `${column} ilike ? escape '\\'`).join(' or ')})`;

/**
 * A page of the organization's partners, newest first: the records' JSON PostgreSQL keeps with each
 * row (the `record_json` column, migrations), joined by selectRecordPage, so the rows are never read
 * into objects here; the filter is one of four fixed texts, each prepared once per connection.
 */
export const listPartnersHandler = handler(partners.listPartners, async (req, ctx) => {
  let where = 'org_id = ? and deleted_at is null';
  const bindings: Knex.RawBinding[] = [ctx.orgId];
  if (req.partner_type) {
    where += ' and partner_type = any(?)';
    bindings.push(typesMatching(req.partner_type));
  }
  const search = req.search?.trim();
  if (search) {
    where += SEARCH_SQL;
    const pattern = likeContains(search);
    for (let i = 0; i < SEARCHED.length; i++) bindings.push(pattern);
  }
  const { records, total } = await selectRecordPage(
    ctx.db,
    { table: 'partners', where, bindings, fields: partnerRecordFields, orderBy: [{ field: 'id', order: 'desc' }], stored: true },
    req,
  );
  return {
    message: records.text !== '[]' ? 'Partners retrieved successfully' : 'No partners found',
    partners: records,
    pagination: paginationOf(req, total),
  };
});
