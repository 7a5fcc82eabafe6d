import { catalog } from '@bo/contracts';
import { filledIn, handler, unlessRefused } from '@bo/runtime';
import { categoryInsertAlone, findCategory, insertCategory, toCategoryRecord, withUniqueCode } from './category.repository';
import { decideNewCategory, newCategoryRecord } from './decide-category';

const MESSAGE = 'Category created successfully';

/**
 * Decide → store. A new category decides on nothing stored: as a rule its insert and the recorded
 * reply are one statement with no transaction (`alone`), its id filled in from it. The statement
 * writes only under a parent of the organization and with a code no other category has; otherwise
 * the usual way (`apply`) answers the parent not found or the code taken. A new category is a leaf
 * no other category names, so it can close no loop: it takes no turn on the tree.
 */
export const createCategoryHandler = handler(catalog.createCategory, {
  alone: (req, ctx) => {
    const category = unlessRefused(() => decideNewCategory(req));
    if (!category) return undefined;
    return {
      ...categoryInsertAlone(ctx.orgId, category, ctx.userId ?? null),
      events: [],
      reply: { message: MESSAGE, category: newCategoryRecord(category, filledIn<string>()) },
    };
  },
  apply: async (req, ctx) => {
    const category = decideNewCategory(req);
    return withUniqueCode(category.code, () =>
      ctx.db.transaction(async (trx) => {
        if (req.parent_id) await findCategory(trx, ctx.orgId, req.parent_id);
        const row = await insertCategory(trx, ctx.orgId, category, ctx.userId ?? null);
        return { message: MESSAGE, category: toCategoryRecord(row) };
      }),
    );
  },
});
