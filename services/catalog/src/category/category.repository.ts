import type { catalog } from '@bo/contracts';
import { isUniqueViolation, type Knex } from '@bo/runtime';
import { parseStringId } from '../ids';
import { categoryRefusals } from './category-refusals';

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

/** The fields a new category is stored with. */
export interface NewCategory {
  name: string;
  code: string | null;
  parent_id: number | null;
  taxable: boolean;
  default_account: string | null;
}

/** Stores a new category of the organization and returns its row. */
export async function insertCategory(trx: Knex, orgId: number, category: NewCategory, userId: string | null): Promise<CategoryRow> {
  const [row] = (await trx('categories')
    .insert({ org_id: orgId, ...category, created_by: userId, updated_by: userId })
    .returning('*')) as CategoryRow[];
  return row as CategoryRow;
}

/** The parent of a category of the organization (null for a root or an unknown id). */
export async function parentOfCategory(db: Knex, orgId: number, id: number): Promise<number | null> {
  return (await db<CategoryRow>('categories').where({ org_id: orgId, id }).first('parent_id'))?.parent_id ?? null;
}

/** The fields of a category an edit may change. */
export type CategoryChanges = Partial<Pick<CategoryRow, 'name' | 'code' | 'taxable' | 'default_account' | 'parent_id'>>;

/** Applies changes to a category, stamping who and when, and returns its new row. */
export async function updateCategory(trx: Knex, id: number, changes: CategoryChanges, userId: string | null): Promise<CategoryRow> {
  const [row] = (await trx('categories')
    .where({ id })
    .update({ ...changes, updated_by: userId, updated_at: trx.fn.now() })
    .returning('*')) as CategoryRow[];
  return row as CategoryRow;
}

/**
 * Serializes changes to an organization's category tree: two edits that each look fine alone
 * (A under B, B under A) must not both commit.
 */
export async function lockCategoryTree(trx: Knex.Transaction, orgId: number): Promise<void> {
  await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`catalog:category-tree:${orgId}`]);
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

/** Empty text means "none" for the optional category fields. */
export function blankToNull(value: string | undefined): string | null {
  const trimmed = value?.trim() ?? '';
  return trimmed === '' ? null : trimmed;
}
