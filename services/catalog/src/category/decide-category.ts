import type { catalog, RequestOf } from '@bo/contracts';
import { parseStringId } from '../ids';
import { categoryRefusals } from './category-refusals';
import { wouldCreateCycle } from './category-tree';

export type CreateCategoryRequest = RequestOf<typeof catalog.createCategory>;
export type EditCategoryRequest = RequestOf<typeof catalog.editCategory>;

/** The columns a new category is stored with. */
export interface NewCategory {
  name: string;
  code: string | null;
  parent_id: number | null;
  taxable: boolean;
  default_account: string | null;
}

/** The columns of a category an edit may change. */
export type CategoryChanges = Partial<NewCategory>;

/** A link of the category tree: a category, its parent, and its row's version (xmin) as it was read. */
export interface TreeLink {
  id: number;
  parent_id: number | null;
  read: string;
}

/** What an edit that sets a category's parent decides on, as read (readCategoryTree, lockAndReadCategoryTree). */
export interface CategoryTree {
  /** The category edited, null when the organization has none of that id. */
  category: { id: number } | null;
  /**
   * The new parent, then its parent, and so on up to a root (or to a category met twice, in a tree
   * already broken): empty when the organization has no category of the parent's id.
   */
  line: readonly TreeLink[];
}

/** An edit of a category, decided. */
export interface CategoryEdit {
  id: number;
  changes: CategoryChanges;
  /**
   * The links the new parent hangs from, as the decision read them (none when the edit sets no
   * parent): the decision stands only while each is still the row read.
   */
  line: readonly TreeLink[];
}

/** Empty text means "none" for the optional category fields. */
export function blankToNull(value: string | undefined): string | null {
  const trimmed = value?.trim() ?? '';
  return trimmed === '' ? null : trimmed;
}

/** The code a request writes: undefined when it leaves the code as it is, null when it clears it. */
export function requestedCode(req: { code?: string }): string | null | undefined {
  return req.code === undefined ? undefined : blankToNull(req.code);
}

/**
 * A new category, decided from the request: blank code and account are none, a category is taxable
 * unless told otherwise, and its parent is named by id (one that is no id names no category). That
 * the parent is the organization's is checked where the category is stored.
 */
export function decideNewCategory(req: CreateCategoryRequest): NewCategory {
  return {
    name: req.name,
    code: blankToNull(req.code),
    parent_id: req.parent_id ? categoryIdOf(req.parent_id) : null,
    taxable: req.taxable ?? true,
    default_account: blankToNull(req.default_account),
  };
}

/** The record of a new category once stored under `id`. */
export function newCategoryRecord(category: NewCategory, id: string): catalog.CategoryRecord {
  return {
    id,
    name: category.name,
    code: category.code,
    parent_id: category.parent_id === null ? null : String(category.parent_id),
    taxable: category.taxable,
    default_account: category.default_account,
  };
}

/** Does the edit hang the category under a parent? Only that decides on the tree (CategoryTree). */
export function setsParent(
  req: Pick<EditCategoryRequest, 'parent_id'>,
): req is Pick<EditCategoryRequest, 'parent_id'> & { parent_id: string } {
  return typeof req.parent_id === 'string' && req.parent_id !== '';
}

/**
 * Decides an edit: the fields given replace the category's (blank code and account are none, a null
 * parent makes it a root). A parent set must be a category of the organization, and neither the
 * category itself nor one below it: the tree would loop. `tree` is what that is decided on, as read;
 * an edit that sets no parent decides on nothing stored (null), and the store must find the category.
 */
export function decideCategoryEdit(req: EditCategoryRequest, tree: CategoryTree | null): CategoryEdit {
  const id = categoryIdOf(req.category_id);
  if (tree && !tree.category) throw categoryRefusals.categoryNotFound(req.category_id);
  const changes: CategoryChanges = {};
  if (req.name !== undefined) changes.name = req.name;
  const code = requestedCode(req);
  if (code !== undefined) changes.code = code;
  if (req.taxable !== undefined) changes.taxable = req.taxable;
  if (req.default_account !== undefined) changes.default_account = blankToNull(req.default_account);
  if (req.parent_id === null) changes.parent_id = null;
  if (!setsParent(req)) return { id, changes, line: [] };
  if (!tree) throw new Error('an edit that sets a parent decides on the tree as read');
  const parentId = categoryIdOf(req.parent_id);
  if (tree.line[0]?.id !== parentId) throw categoryRefusals.categoryNotFound(req.parent_id);
  const parents = new Map(tree.line.map((link) => [link.id, link.parent_id]));
  if (wouldCreateCycle(id, parentId, (at) => parents.get(at) ?? null)) throw categoryRefusals.parentCycle(req.parent_id, req.category_id);
  changes.parent_id = parentId;
  return { id, changes, line: tree.line };
}

/** The category a string id names; one that is no id names none. */
function categoryIdOf(value: string): number {
  const id = parseStringId(value);
  if (id === null) throw categoryRefusals.categoryNotFound(value);
  return id;
}
