import type { catalog } from '@bo/contracts';
import { isUniqueViolation, type Knex, type OneStatementWrite, type StorePart } from '@bo/runtime';
import { parseStringId } from '../ids';
import { categoryRefusals } from './category-refusals';
import type { CategoryChanges, CategoryEdit, CategoryTree, NewCategory, TreeLink } from './decide-category';

export interface CategoryRow {
  id: number;
  org_id: number;
  name: string;
  code: string | null;
  parent_id: number | null;
  taxable: boolean;
  default_account: string | null;
}

export function toCategoryRecord(row: CategoryRow): catalog.CategoryRecord {
  return {
    id: String(row.id),
    name: row.name,
    code: row.code,
    parent_id: row.parent_id === null ? null : String(row.parent_id),
    taxable: row.taxable,
    default_account: row.default_account,
  };
}

/** A category of the organization, optionally locked; another organization's is not found. */
export async function findCategory(db: Knex, orgId: number, categoryId: string, opts: { lock?: boolean } = {}): Promise<CategoryRow> {
  const id = parseStringId(categoryId);
  if (id === null) throw categoryRefusals.categoryNotFound(categoryId);
  const query = db<CategoryRow>('categories').where({ org_id: orgId, id }).first();
  const row = await (opts.lock ? query.forUpdate() : query);
  if (!row) throw categoryRefusals.categoryNotFound(categoryId);
  return row;
}

/** Stores a new category of the organization and returns its row. */
export async function insertCategory(trx: Knex, orgId: number, category: NewCategory, userId: string | null): Promise<CategoryRow> {
  const [row] = (await trx('categories')
    .insert({ org_id: orgId, ...category, created_by: userId, updated_by: userId })
    .returning('*')) as CategoryRow[];
  return row as CategoryRow;
}

/** Applies changes to a category, stamping who and when, and returns its new row. */
export async function updateCategory(trx: Knex, id: number, changes: CategoryChanges, userId: string | null): Promise<CategoryRow> {
  const [row] = (await trx('categories')
    .where({ id })
    .update({ ...changes, updated_by: userId, updated_at: trx.fn.now() })
    .returning('*')) as CategoryRow[];
  return row as CategoryRow;
}

/**
 * The tree an edit decides on (CategoryTree): the category, and the line from the new parent up to
 * a root, each link with its row version (xmin). Ids that are none (null) find nothing. `line`
 * stops before a category it met already, so a tree already broken ends the read.
 */
function categoryTreeRead(orgId: number, categoryId: number | null, parentId: number | null) {
  return {
    sql: `with recursive line as (
            select c.id, c.parent_id, c.xmin::text as read, array[c.id] as path
              from categories c where c.org_id = ? and c.id = ?
            union all
            select c.id, c.parent_id, c.xmin::text, line.path || c.id
              from line join categories c on c.org_id = ? and c.id = line.parent_id
             where not c.id = any(line.path)
          )
          select (select c.id from categories c where c.org_id = ? and c.id = ?) as category_id,
                 coalesce((select json_agg(json_build_object('id', id, 'parent_id', parent_id, 'read', read) order by cardinality(path))
                             from line), '[]'::json) as line`,
    bindings: [orgId, parentId, orgId, orgId, categoryId] as Knex.RawBinding[],
  };
}

interface TreeRow {
  category_id: number | null;
  line: TreeLink[];
}

function treeOf(row: TreeRow | undefined): CategoryTree {
  return { category: row?.category_id == null ? null : { id: row.category_id }, line: row?.line ?? [] };
}

/**
 * The tree an edit setting the parent `parentId` of `categoryId` decides on, read with no lock and
 * no transaction, in one statement: for a store that stands only while every link read is unchanged
 * (categoryEditAlone).
 */
export async function readCategoryTree(db: Knex, orgId: number, categoryId: string, parentId: string): Promise<CategoryTree> {
  const read = categoryTreeRead(orgId, parseStringId(categoryId), parseStringId(parentId));
  const { rows } = await db.raw<{ rows: TreeRow[] }>(read.sql, read.bindings);
  return treeOf(rows[0]);
}

/**
 * The tree an edit decides on, under the locks of the usual way: the organization's tree (edits of
 * it take turns, so two that each look fine alone, A under B and B under A, never both commit), the
 * category's row, then the line from the new parent `parentId` (none for an edit that sets none).
 * They go out as one write (node-postgres pipelines them): the read last, so its snapshot, taken
 * once the locks are held, has every edit that went before in it.
 */
export async function lockAndReadCategoryTree(
  trx: Knex.Transaction,
  orgId: number,
  categoryId: string,
  parentId: string | null,
): Promise<CategoryTree> {
  const id = parseStringId(categoryId);
  const tree = trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`catalog:category-tree:${orgId}`]);
  const lock = trx.raw<{ rows: Array<{ id: number }> }>('select id from categories where org_id = ? and id = ? for update', [orgId, id]);
  const read = parentId === null ? null : categoryTreeRead(orgId, id, parseStringId(parentId));
  const load = read ? trx.raw<{ rows: TreeRow[] }>(read.sql, read.bindings) : Promise.resolve(null);
  // A lock's failure is the one to answer: the statements behind it fail only because the transaction is aborted.
  const [treeLocked, locked, loaded] = await Promise.allSettled([tree, lock, load]);
  if (treeLocked.status === 'rejected') throw treeLocked.reason;
  if (locked.status === 'rejected') throw locked.reason;
  if (loaded.status === 'rejected') throw loaded.reason;
  const category = locked.value.rows[0] ?? null;
  return { category, line: loaded.value ? treeOf(loaded.value.rows[0]).line : [] };
}

/** A category as its record, less its parent (as an edit answers it), in SQL over the categories row. */
const EDITED_RECORD = `json_build_object('id', id::text, 'name', name, 'code', code, 'taxable', taxable, 'default_account', default_account)`;

/**
 * A new category's insert as a one-statement write (storeAlone). A parent must be the
 * organization's category (the insert reads it), else nothing is written and the usual way answers;
 * so must a code no other category has (the unique index). The id is filled in where the reply
 * says `id`.
 */
export function categoryInsertAlone(
  orgId: number,
  category: NewCategory,
  userId: string | null,
): Pick<OneStatementWrite, 'parts' | 'expects' | 'fills'> {
  const values = [orgId, category.name, category.code, category.taxable, category.default_account, userId, userId];
  const columns = 'org_id, name, code, taxable, default_account, created_by, updated_by, parent_id';
  return {
    parts: [
      category.parent_id === null
        ? { sql: `insert into categories (${columns}) values (?, ?, ?, ?, ?, ?, ?, null) returning id`, bindings: values }
        : {
            sql: `insert into categories (${columns})
                  select ?, ?, ?, ?, ?, ?, ?, p.id from categories p where p.org_id = ? and p.id = ?
                  returning id`,
            bindings: [...values, orgId, category.parent_id],
          },
    ],
    expects: '(select count(*) from store1) = 1',
    fills: [{ key: 'id', sql: '(select to_json(id::text)::text from store1)' }],
  };
}

/**
 * An edit's update as a one-statement write (storeAlone): the category must be the organization's,
 * else nothing is written and the usual way answers; and when the edit sets a parent, every link of
 * the line it decided on (edit.line) must still be the row read. Those links are locked for share
 * (`store1`), which reads each at its newest version, waiting for an edit of it in flight: an edit
 * that committed after the decision read, or commits while this runs, makes the statement write
 * nothing, and an edit that comes later waits for this one. So two edits that each look fine alone
 * (A under B, B under A) never both stand, and the tree takes no lock of its own here: an edit the
 * usual way locks its category for update before it reads its line (lockAndReadCategoryTree), so
 * it waits for this statement's share lock on that category, or this statement waits for it and
 * then finds the category changed; either way the later of the two sees the earlier. The record as
 * updated is filled in where the reply says `category`.
 */
export function categoryEditAlone(
  orgId: number,
  edit: CategoryEdit,
  userId: string | null,
): Pick<OneStatementWrite, 'parts' | 'expects' | 'fills'> {
  const values = { ...edit.changes, updated_by: userId } as Record<string, Knex.RawBinding>;
  const columns = Object.keys(values);
  const update: StorePart = {
    sql: `update categories set ${columns.map((c) => `"${c}" = ?`).join(', ')}, updated_at = now()
           where org_id = ? and id = ? returning ${EDITED_RECORD} as record`,
    bindings: [...columns.map((c) => values[c] ?? null), orgId, edit.id],
  };
  if (!edit.line.length) {
    return {
      parts: [update],
      expects: '(select count(*) from store1) = 1',
      fills: [{ key: 'category', sql: '(select record::text from store1)' }],
    };
  }
  return {
    parts: [
      {
        sql: `select c.id from categories c join unnest(?::bigint[], ?::text[]) as r(id, read) on r.id = c.id
               where c.org_id = ? and c.xmin::text = r.read for share of c`,
        bindings: [edit.line.map((l) => l.id), edit.line.map((l) => l.read), orgId],
      },
      update,
    ],
    expects: `(select count(*) from store1) = ${edit.line.length} and (select count(*) from store2) = 1`,
    fills: [{ key: 'category', sql: '(select record::text from store2)' }],
  };
}

/** Turns the code's unique index into the 400 a client can act on. */
export async function withUniqueCode<T>(code: string | null | undefined, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (isUniqueViolation(err, 'categories_org_code')) throw categoryRefusals.codeTaken(code);
    throw err;
  }
}
