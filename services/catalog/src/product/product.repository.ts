import type { catalog } from '@bo/contracts';
import { likeContains, selectPage, type Knex, type PageRequest } from '@bo/runtime';
import type { ProductRow, ProductView } from './product.record';
import { productRefusals } from './product-refusals';

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
  if (!row) throw productRefusals.productNotFound(productId);
  return row;
}

export async function loadProductView(db: Knex, orgId: number, productId: number): Promise<ProductView> {
  const row = (await productViews(db, orgId).where('p.id', productId).first()) as ProductView | undefined;
  if (!row) throw productRefusals.productNotFound(productId);
  return row;
}

export async function totalStock(db: Knex, productId: number): Promise<string> {
  const row = await db('stock_quantities').where({ product_id: productId }).sum<{ total: string | null }[]>({ total: 'quantity' });
  return row[0]?.total ?? '0';
}

/** The fields a new product is stored with. */
export type NewProduct = Omit<ProductRow, 'id' | 'org_id' | 'version' | 'deleted_at' | 'created_at' | 'updated_at'>;

/** Stores a new product of the organization and returns its row. */
export async function insertProduct(trx: Knex, orgId: number, product: NewProduct, userId: string | null): Promise<ProductRow> {
  const [row] = (await trx('products')
    .insert({ org_id: orgId, ...product, created_by: userId, updated_by: userId })
    .returning('*')) as ProductRow[];
  return row as ProductRow;
}

/** Applies an edit's changes to a product, bumping its version, and returns its new row. */
export async function updateProduct(
  trx: Knex,
  productId: number,
  changes: Partial<Record<keyof ProductRow, unknown>>,
  userId: string | null,
): Promise<ProductRow> {
  const [row] = (await trx('products')
    .where({ id: productId })
    .update({ ...changes, version: trx.raw('version + 1'), updated_by: userId, updated_at: trx.fn.now() } as never)
    .returning('*')) as ProductRow[];
  return row as ProductRow;
}

/** The ids of a product's live variants. */
export async function liveVariantIdsOf(trx: Knex, productId: number): Promise<number[]> {
  const rows: Array<{ id: number }> = await trx('variants').where({ parent_product_id: productId }).whereNull('deleted_at').select('id');
  return rows.map((v) => v.id);
}

/** Soft-deletes a product's live variants. */
export async function markVariantsDeleted(trx: Knex, productId: number): Promise<void> {
  await trx('variants').where({ parent_product_id: productId }).whereNull('deleted_at').update({ deleted_at: trx.fn.now() });
}

/** Soft-deletes a product, bumping its version. */
export async function markProductDeleted(trx: Knex, productId: number, userId: string | null): Promise<void> {
  await trx('products')
    .where({ id: productId })
    .update({ deleted_at: trx.fn.now(), updated_by: userId, version: trx.raw('version + 1') });
}

/** The quantity a product holds at one location (exact decimal text; '0' when it holds none). */
export async function quantityAt(db: Knex, productId: number, locationId: number): Promise<string> {
  // numeric comes back from pg as exact decimal text.
  const row = await db('stock_quantities')
    .where({ product_id: productId, location_id: locationId })
    .first<{ quantity: string } | undefined>('quantity');
  return row?.quantity ?? '0';
}

/** What the product list filters on: a type, a category with its subcategories, a text search. */
export interface ProductFilter {
  type?: string;
  categoryId?: number;
  search?: string;
}

/** Narrows a product query to a filter; a category includes its subcategories, as Odoo's "child of" does. */
export function filterProducts(orgId: number, filter: ProductFilter) {
  return (q: Knex.QueryBuilder) => {
    if (filter.type) q.where('p.type', filter.type);
    if (filter.categoryId !== undefined) {
      q.whereRaw(
        `p.category_id in (with recursive tree as (select id from categories where org_id = ? and id = ?
           union all select c.id from categories c join tree t on c.parent_id = t.id where c.org_id = ?)
         select id from tree)`,
        [orgId, filter.categoryId, orgId],
      );
    }
    if (filter.search) {
      const pattern = likeContains(filter.search);
      q.where((w) => {
        for (const column of ['p.name', 'p.sku', 'p.barcode']) w.orWhereRaw(`?? ilike ? escape '\\'`, [column, pattern]);
      });
    }
  };
}

type SortKey = (typeof catalog.productSortKeys)[number];
/** `stock` is the computed column of the select; the rest are product columns. */
const sortColumn = (key: SortKey) => (key === 'stock' ? 'stock' : `p.${key}`);

/** One page of the organization's live products matching a filter, in the order asked, with the total. */
export async function pageOfProducts(
  db: Knex,
  orgId: number,
  filter: ProductFilter,
  page: PageRequest,
  sortBy: SortKey,
  order: 'asc' | 'desc',
): Promise<{ rows: ProductView[]; total: number }> {
  return selectPage<ProductView>(productViews(db, orgId).modify(filterProducts(orgId, filter)), page, (q) =>
    q.orderBy([
      { column: sortColumn(sortBy), order },
      { column: 'p.id', order },
    ]),
  );
}

/** A live variant as a lookup returns it. */
export interface LookupVariantRow {
  id: number;
  parent_product_id: number;
  variant_name: string;
  price: string;
  sku: string | null;
  tax_rate: string | null;
  tax_category: string | null;
}

/** The organization's live products among the ids (none asked, no query): plain SQL, one text whatever the number of ids. */
export async function liveProductsAmong(db: Knex, orgId: number, ids: number[]): Promise<ProductRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.raw<{ rows: ProductRow[] }>(
    'select * from products where org_id = ? and id = any(?::int[]) and deleted_at is null',
    [orgId, ids],
  );
  return rows;
}

/** The organization's live variants of live products among the ids (none asked, no query). */
export async function liveVariantsAmong(db: Knex, orgId: number, ids: number[]): Promise<LookupVariantRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.raw<{ rows: LookupVariantRow[] }>(
    `select v.id, v.parent_product_id, v.variant_name, v.price, v.sku, v.tax_rate, v.tax_category
       from variants v join products p on p.id = v.parent_product_id and p.org_id = v.org_id
      where v.org_id = ? and v.id = any(?::int[]) and v.deleted_at is null and p.deleted_at is null`,
    [orgId, ids],
  );
  return rows;
}
