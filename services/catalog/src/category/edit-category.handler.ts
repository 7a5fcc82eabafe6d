import { catalog } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { wouldCreateCycle } from './category-tree';
import {
  blankToNull,
  findCategory,
  lockCategoryTree,
  parentOfCategory,
  toCategoryRecord,
  updateCategory,
  withUniqueCode,
  type CategoryChanges,
} from './category.repository';
import { categoryRefusals } from './category-refusals';

export const editCategoryHandler = handler(catalog.editCategory, async (req, ctx) => {
  const code = req.code === undefined ? undefined : blankToNull(req.code);
  return withUniqueCode(code, () =>
    ctx.db.transaction(async (trx) => {
      await lockCategoryTree(trx, ctx.orgId);
      const current = await findCategory(trx, ctx.orgId, req.category_id, { lock: true });
      const changes: CategoryChanges = {};
      if (req.name !== undefined) changes.name = req.name;
      if (code !== undefined) changes.code = code;
      if (req.taxable !== undefined) changes.taxable = req.taxable;
      if (req.default_account !== undefined) changes.default_account = blankToNull(req.default_account);
      if (req.parent_id === null) changes.parent_id = null;
      if (req.parent_id) {
        const parent = await findCategory(trx, ctx.orgId, req.parent_id);
        const parentOf = (id: number) => parentOfCategory(trx, ctx.orgId, id);
        if (await wouldCreateCycle(current.id, parent.id, parentOf)) throw categoryRefusals.parentCycle(req.parent_id, req.category_id);
        changes.parent_id = parent.id;
      }
      const row = await updateCategory(trx, current.id, changes, ctx.userId ?? null);
      const { parent_id: _omitted, ...category } = toCategoryRecord(row);
      return { message: 'Category updated successfully', category };
    }),
  );
});
