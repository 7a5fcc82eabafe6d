import { catalog } from '@bo/contracts';
import { filledIn, handler, unlessRefused } from '@bo/runtime';
import {
  categoryEditAlone,
  lockAndReadCategoryTree,
  readCategoryTree,
  toCategoryRecord,
  updateCategory,
  withUniqueCode,
} from './category.repository';
import { decideCategoryEdit, requestedCode, setsParent } from './decide-category';

const MESSAGE = 'Category updated successfully';

/**
 * Load → decide → store, optimistic as a rule. An edit that sets no parent decides on nothing
 * stored: its update is one statement (`alone`), which must find the category. One that hangs the
 * category under a parent reads the line from that parent up to a root with no lock, refuses a loop
 * on it (decideCategoryEdit), and stores only while every link of it is the row read, locking them
 * for share meanwhile (categoryEditAlone): two edits that would close a loop together never both
 * stand. The record is answered as the update wrote it. A refusal, a category not found, a code
 * taken or a link changed since the read are judged again the usual way (`apply`): the tree's turn,
 * the category's lock, then the line read under them.
 */
export const editCategoryHandler = handler(catalog.editCategory, {
  alone: async (req, ctx) => {
    const tree = setsParent(req) ? await readCategoryTree(ctx.db, ctx.orgId, req.category_id, req.parent_id) : null;
    const edit = unlessRefused(() => decideCategoryEdit(req, tree));
    if (!edit) return undefined;
    return {
      ...categoryEditAlone(ctx.orgId, edit, ctx.userId ?? null),
      events: [],
      reply: { message: MESSAGE, category: filledIn() },
    };
  },
  apply: async (req, ctx) => {
    return withUniqueCode(requestedCode(req), () =>
      ctx.db.transaction(async (trx) => {
        const tree = await lockAndReadCategoryTree(trx, ctx.orgId, req.category_id, setsParent(req) ? req.parent_id : null);
        const edit = decideCategoryEdit(req, tree);
        const { parent_id: _omitted, ...category } = toCategoryRecord(await updateCategory(trx, edit.id, edit.changes, ctx.userId ?? null));
        return { message: MESSAGE, category };
      }),
    );
  },
});
