import { catalog } from '@bo/contracts';
import { handler, likeContains, paginationOf, selectPage, type Knex } from '@bo/runtime';
import { findCategory } from '../category/category.repository';
import { toProductRecord, type ProductView } from './product.record';
import { productViews } from './product.repository';

type SortKey = (typeof catalog.productSortKeys)[number];
/** `stock` is the computed column of the select; the rest are product columns. */
const sortColumn = (key: SortKey) => (key === 'stock' ? 'stock' : `p.${key}`);

export const listProductsHandler = handler(catalog.listProducts, async (req, ctx) => {
  // A category filter includes its subcategories, as Odoo's "child of" does.
  const category = req.category_id ? await findCategory(ctx.db, ctx.orgId, req.category_id) : null;
  const filter = (q: Knex.QueryBuilder) => {
    if (req.type) q.where('p.type', req.type);
    if (category) {
      q.whereRaw(
        `p.category_id in (with recursive tree as (select id from categories where org_id = ? and id = ?
           union all select c.id from categories c join tree t on c.parent_id = t.id where c.org_id = ?)
         select id from tree)`,
        [ctx.orgId, category.id, ctx.orgId],
      );
    }
    const search = req.search?.trim();
    if (search) {
      const pattern = likeContains(search);
      q.where((w) => {
        for (const column of ['p.name', 'p.sku', 'p.barcode']) w.orWhereRaw(`?? ilike ? escape '\\'`, [column, pattern]);
      });
    }
  };
  const sortBy = req.sort_by ?? 'created_at';
  const order = req.sort_order ?? (req.sort_by ? 'asc' : 'desc');
  const { rows, total } = await selectPage<ProductView>(productViews(ctx.db, ctx.orgId).modify(filter), req, (page) =>
    page.orderBy([
      { column: sortColumn(sortBy), order },
      { column: 'p.id', order },
    ]),
  );
  return {
    message: rows.length ? 'Products retrieved successfully' : 'No products found',
    products: rows.map(toProductRecord),
    pagination: paginationOf(req, total),
  };
});
