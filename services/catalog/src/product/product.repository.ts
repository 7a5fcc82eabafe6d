import { notFound, type Knex } from '@bo/runtime';
import type { ProductRow, ProductView } from './product.record';

/** Products with their category name and total stock; callers add filters and order. */
export function productViews(db: Knex, orgId: number) {
  return (
    db('products as p')
      // Every join repeats the organization: a row of another organization never lends its name or stock.
      .leftJoin('categories as c', (j) => j.on('c.id', 'p.category_id').andOn('c.org_id', 'p.org_id'))
      .where('p.org_id', orgId)
      .whereNull('p.deleted_at')
      .select(
        'p.*',
        'c.name as category_name',
        db.raw('coalesce((select sum(q.quantity) from stock_quantities q where q.product_id = p.id and q.org_id = p.org_id), 0) as stock'),
      )
  );
}

/**
 * A live product of the organization. With `lock` its row is locked for update: every write to a
 * product's stock takes this lock first, so stock changes of one product queue up.
 */
export async function findLiveProduct(db: Knex, orgId: number, productId: number, opts: { lock?: boolean } = {}): Promise<ProductRow> {
  const query = db<ProductRow>('products').where({ org_id: orgId, id: productId }).whereNull('deleted_at').first();
  const row = await (opts.lock ? query.forUpdate() : query);
  if (!row) throw notFound('Product', productId);
  return row;
}

export async function loadProductView(db: Knex, orgId: number, productId: number): Promise<ProductView> {
  const row = (await productViews(db, orgId).where('p.id', productId).first()) as ProductView | undefined;
  if (!row) throw notFound('Product', productId);
  return row;
}

export async function totalStock(db: Knex, productId: number): Promise<string> {
  const row = await db('stock_quantities').where({ product_id: productId }).sum<{ total: string | null }[]>({ total: 'quantity' });
  return row[0]?.total ?? '0';
}
