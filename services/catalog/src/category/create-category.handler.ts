import { catalog } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { blankToNull, findCategory, insertCategory, lockCategoryTree, toCategoryRecord, withUniqueCode } from './category.repository';

export const createCategoryHandler = handler(catalog.createCategory, async (req, ctx) => {
  const code = blankToNull(req.code);
  return withUniqueCode(code, () =>
    ctx.db.transaction(async (trx) => {
      await lockCategoryTree(trx, ctx.orgId);
      const parent = req.parent_id ? await findCategory(trx, ctx.orgId, req.parent_id) : null;
      const row = await insertCategory(
        trx,
        ctx.orgId,
        {
          name: req.name,
          code,
          parent_id: parent?.id ?? null,
          taxable: req.taxable ?? true,
          default_account: blankToNull(req.default_account),
        },
        ctx.userId ?? null,
      );
      return { message: 'Category created successfully', category: toCategoryRecord(row) };
    }),
  );
});
