import type { catalog } from '@bo/contracts';
import {
  likeContains,
  selectPage,
  storeWithCommit,
  type Knex,
  type OneStatementWrite,
  type PageRequest,
  type StorePart,
} from '@bo/runtime';
import { formatDateTimeSql } from '@bo/kernel';
import { parseStringId } from '../ids';
import { claimSkuPart } from '../sku/sku.registry';
import type { DeletionState, ProductDeletion } from './decide-deletion';
import type { NamedCategory, ProductChanges, ProductEdit, ProductEditState } from './decide-product-edit';
import type { NewProduct, ProductRow, ProductView } from './product.record';
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

/** Stores a new product of the organization and returns its row. */
export async function insertProduct(trx: Knex, orgId: number, product: NewProduct, userId: string | null): Promise<ProductRow> {
  const [row] = (await trx('products')
    .insert({ org_id: orgId, ...product, created_by: userId, updated_by: userId })
    .returning('*')) as ProductRow[];
  return row as ProductRow;
}

/**
 * A new product as a one-statement write (storeAlone): its insert, under the category it names,
 * which must be the organization's (the insert reads it), and its SKU claimed (no article may hold
 * it: the primary key); else nothing, and the usual way answers. Its id, its times and its
 * category's name are filled in where the reply and the event say `id`, `created_at`, `updated_at`
 * and `category`.
 */
export function productInsertAlone(
  orgId: number,
  product: NewProduct,
  userId: string | null,
): Pick<OneStatementWrite, 'parts' | 'expects' | 'fills'> {
  const columns = Object.keys(product) as Array<keyof NewProduct>;
  const values = [orgId, ...columns.map((c) => product[c] as Knex.RawBinding), userId, userId];
  const insert = `insert into products (org_id, ${columns.map((c) => `"${c}"`).join(', ')}, created_by, updated_by)`;
  const placeholders = values.map(() => '?').join(', ');
  const returning = 'returning id, category_id, created_at, updated_at';
  const sku = claimSkuPart(orgId, product.sku, 'product', 'store1');
  return {
    parts: [
      product.category_id === null
        ? { sql: `${insert} values (${placeholders}) ${returning}`, bindings: values }
        : {
            sql: `${insert} select ${placeholders} from categories c where c.org_id = ? and c.id = ? ${returning}`,
            bindings: [...values, orgId, product.category_id],
          },
      ...(sku ? [sku] : []),
    ],
    expects: '(select count(*) from store1) = 1',
    fills: [
      { key: 'id', sql: '(select id::text from store1)' },
      { key: 'created_at', sql: `(select to_json(${formatDateTimeSql('created_at')})::text from store1)` },
      { key: 'updated_at', sql: `(select to_json(${formatDateTimeSql('updated_at')})::text from store1)` },
      ...(product.category_id === null
        ? []
        : [{ key: 'category', sql: '(select to_json(c.name)::text from store1 p join categories c on c.id = p.category_id)' }]),
    ],
  };
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

/**
 * What an edit of a product decides on (ProductEditState), read with no lock in one statement: the
 * live product with its category's name and its stock, its row version (`read`, its xmin) for an
 * edit stored only while it is still that row (productEditAlone), and the category the request
 * names (`categoryId`, none when undefined; one that is no id is not found).
 */
export async function readProductEdit(
  db: Knex,
  orgId: number,
  productId: number,
  categoryId: string | undefined,
): Promise<{ state: ProductEditState; read: string | null }> {
  type Row = ProductView & { read_version: string; named_category: NamedCategory };
  const row = (await productViews(db, orgId)
    .where('p.id', productId)
    .select(
      db.raw('p.xmin::text as read_version'),
      db.raw(
        `(select json_build_object('id', n.id, 'name', n.name) from categories n where n.org_id = p.org_id and n.id = ?) as named_category`,
        [categoryId === undefined ? null : parseStringId(categoryId)],
      ),
    )
    .first()) as Row | undefined;
  const category = categoryId === undefined ? undefined : (row?.named_category ?? null);
  if (!row) return { state: { product: null, category }, read: null };
  const { read_version: read, named_category: _named, ...product } = row;
  return { state: { product, category }, read };
}

/**
 * An edit of a product's fields decided on an unlocked read (readProductEdit) as a one-statement
 * write (storeAlone): the product updated with its next version only while it is the row read
 * (`read`; every edit, every move of its stock and every variant made under it writes that row),
 * else nothing and the usual way decides again under its lock. Its time of update is filled in
 * where the reply and the event say `updated_at`.
 */
export function productEditAlone(
  orgId: number,
  edit: ProductEdit,
  userId: string | null,
  read: string,
): Pick<OneStatementWrite, 'parts' | 'expects' | 'fills'> {
  const columns = Object.keys(edit.changes) as Array<keyof ProductChanges>;
  return {
    parts: [
      {
        sql: `update products set ${columns.map((c) => `"${c}" = ?`).join(', ')}${columns.length ? ', ' : ''}version = version + 1, updated_by = ?, updated_at = now()
               where org_id = ? and id = ? and deleted_at is null and xmin::text = ?
               returning ${formatDateTimeSql('updated_at')} as updated_at`,
        bindings: [...columns.map((c) => (edit.changes[c] ?? null) as Knex.RawBinding), userId, orgId, edit.productId, read],
      },
    ],
    expects: '(select count(*) from store1) = 1',
    fills: [{ key: 'updated_at', sql: '(select to_json(updated_at)::text from store1)' }],
  };
}

/** A product's live variants' ids, in SQL over the product `p` (an array, empty for none). */
const LIVE_VARIANT_IDS_OF_P =
  "(select coalesce(array_agg(v.id order by v.id), '{}') from variants v where v.parent_product_id = p.id and v.deleted_at is null)";

type DeletionRow = ProductView & { read_version: string; variant_ids: number[] };

function deletionStateOf(row: DeletionRow | undefined): { state: DeletionState; read: string | null } {
  if (!row) return { state: { product: null, variantIds: [] }, read: null };
  const { read_version: read, variant_ids: variantIds, ...product } = row;
  return { state: { product, variantIds }, read };
}

/**
 * What deleting a product decides on (DeletionState), read with no lock in one statement, with the
 * product row's version (`read`, its xmin), for a delete stored only while it is still that row
 * (productDeletionAlone).
 */
export async function readProductDeletion(
  db: Knex,
  orgId: number,
  productId: number,
): Promise<{ state: DeletionState; read: string | null }> {
  const row = (await productViews(db, orgId)
    .where('p.id', productId)
    .select(db.raw('p.xmin::text as read_version'), db.raw(`${LIVE_VARIANT_IDS_OF_P} as variant_ids`))
    .first()) as DeletionRow | undefined;
  return deletionStateOf(row);
}

/**
 * Locks the product, then reads what deleting it decides on, as two statements that leave in one
 * write (node-postgres pipelines them): the lock first, so the read's snapshot, taken once the lock
 * is held, has every variant made under the product before (a variant's create locks it too).
 */
export async function lockAndReadProductDeletion(trx: Knex.Transaction, orgId: number, productId: number): Promise<DeletionState> {
  // Each is sent as it is made: the lock first.
  const lock = trx
    .raw('select 1 from products where org_id = ? and id = ? and deleted_at is null for update', [orgId, productId])
    .then(() => null);
  const read = productViews(trx, orgId)
    .where('p.id', productId)
    .select(trx.raw('p.xmin::text as read_version'), trx.raw(`${LIVE_VARIANT_IDS_OF_P} as variant_ids`))
    .first()
    .then((row) => row as DeletionRow | undefined);
  // The lock's failure is the one to answer: the read behind it fails only because the transaction is aborted.
  const [locked, loaded] = await Promise.allSettled([lock, read]);
  if (locked.status === 'rejected') throw locked.reason;
  if (loaded.status === 'rejected') throw loaded.reason;
  return deletionStateOf(loaded.value).state;
}

/**
 * The writes of a product's delete, as parts of one statement: the product marked deleted with its
 * next version (`store1`), its variants decided on marked deleted (`store2`), and the SKUs of both
 * freed (`store3`). With `read`, the product is updated only while it is the row read (its xmin),
 * and the other parts write only once it was: every variant made under the product writes its row
 * (migration 009), as does every edit and every move of its stock, so a delete decided before any
 * of those writes nothing.
 */
function deletionParts(orgId: number, deletion: ProductDeletion, userId: string | null, read: string | null): StorePart[] {
  const variantIds = [...deletion.variantIds];
  const once = read === null ? '' : ' and exists (select 1 from store1)';
  return [
    {
      sql: `update products set deleted_at = now(), updated_by = ?, version = version + 1
             where org_id = ? and id = ? and deleted_at is null${read === null ? '' : ' and xmin::text = ?'} returning id`,
      bindings: [userId, orgId, deletion.productId, ...(read === null ? [] : [read])],
    },
    {
      sql: `update variants set deleted_at = now()
             where org_id = ? and parent_product_id = ? and id = any(?::int[]) and deleted_at is null${once} returning id`,
      bindings: [orgId, deletion.productId, variantIds],
    },
    {
      sql: `delete from skus
             where org_id = ? and ((owner_kind = 'product' and owner_id = ?) or (owner_kind = 'variant' and owner_id = any(?::int[])))${once}`,
      bindings: [orgId, deletion.productId, variantIds],
    },
  ];
}

/** Writes a product's delete decided under its lock with the statement that commits the transaction (storeWithCommit). */
export async function storeProductDeletion(
  trx: Knex.Transaction,
  orgId: number,
  deletion: ProductDeletion,
  userId: string | null,
): Promise<void> {
  await storeWithCommit(trx, deletionParts(orgId, deletion, userId, null));
}

/**
 * A product's delete decided on an unlocked read (readProductDeletion) as a one-statement write
 * (storeAlone): it writes only while the product is the row read (`read`), and every variant decided
 * on is still live; else nothing, and the usual way decides again under the product's lock.
 */
export function productDeletionAlone(
  orgId: number,
  deletion: ProductDeletion,
  userId: string | null,
  read: string,
): Pick<OneStatementWrite, 'parts' | 'expects'> {
  return {
    parts: deletionParts(orgId, deletion, userId, read),
    expects: `(select count(*) from store1) = 1 and (select count(*) from store2) = ${deletion.variantIds.length}`,
  };
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
