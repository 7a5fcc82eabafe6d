import { catalog } from '@bo/contracts';
import { handler, paginationOf } from '@bo/runtime';
import { findCategory } from '../category/category.repository';
import { toProductRecord } from './product.record';
import { pageOfProducts } from './product.repository';

export const listProductsHandler = handler(catalog.listProducts, async (req, ctx) => {
  // A category filter includes its subcategories, as Odoo's "child of" does.
  const category = req.category_id ? await findCategory(ctx.db, ctx.orgId, req.category_id) : null;
  const filter = { type: req.type || undefined, categoryId: category?.id, search: req.search?.trim() || undefined };
  const sortBy = req.sort_by ?? 'created_at';
  const order = req.sort_order ?? (req.sort_by ? 'asc' : 'desc');
  const { rows, total } = await pageOfProducts(ctx.db, ctx.orgId, filter, req, sortBy, order);
  return {
    message: rows.length ? 'Products retrieved successfully' : 'No products found',
    products: rows.map(toProductRecord),
    pagination: paginationOf(req, total),
  };
});
