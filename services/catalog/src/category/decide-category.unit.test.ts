import { parseWith, catalog } from '@bo/contracts';
import { decideCategoryEdit, decideNewCategory, newCategoryRecord, requestedCode, setsParent, type CategoryTree } from './decide-category';

const createRequest = (payload: Record<string, unknown>) => {
  const parsed = parseWith(catalog.createCategory.request, { org_id: 1, ...payload });
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.value;
};
const editRequest = (payload: Record<string, unknown>) => {
  const parsed = parseWith(catalog.editCategory.request, { org_id: 1, ...payload });
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.value;
};

// 1 <- 2 <- 3 (3's parent is 2, 2's parent is 1), 4 alone; as the line from a new parent up reads them.
const link = (id: number, parent_id: number | null) => ({ id, parent_id, read: `x${id}` });
const lineFrom3 = [link(3, 2), link(2, 1), link(1, null)];

describe('deciding a new category', () => {
  it('given a name alone, when created, then it is a taxable root with no code or account', () => {
    const category = decideNewCategory(createRequest({ name: 'Beverages' }));
    expect(category).toEqual({ name: 'Beverages', code: null, parent_id: null, taxable: true, default_account: null });
    expect(newCategoryRecord(category, '17')).toEqual({
      id: '17',
      name: 'Beverages',
      code: null,
      parent_id: null,
      taxable: true,
      default_account: null,
    });
  });

  it('given a parent, code and account, when created, then they are kept (blank ones as none) and the parent named by its id', () => {
    const category = decideNewCategory(
      createRequest({ name: 'Tea', parent_id: '12', code: ' TEA ', default_account: ' ', taxable: false }),
    );
    expect(category).toEqual({ name: 'Tea', code: 'TEA', parent_id: 12, taxable: false, default_account: null });
    expect(newCategoryRecord(category, '18')).toMatchObject({ parent_id: '12', code: 'TEA' });
  });

  it('given a parent that is no id, when created, then the parent is not found', () => {
    expect(() => decideNewCategory(createRequest({ name: 'X', parent_id: 'abc' }))).toThrow(
      expect.objectContaining({ refusal: 'category.categoryNotFound', code: 'not_found', message: 'Category abc not found' }),
    );
  });
});

describe('deciding an edit of a category', () => {
  it('given fields but no parent, when edited, then they change and nothing stored is decided on', () => {
    const req = editRequest({ category_id: '4', name: 'Green tea', code: null, taxable: false, default_account: '4100' });
    expect(setsParent(req)).toBe(false);
    expect(requestedCode(req)).toBeNull();
    expect(decideCategoryEdit(req, null)).toEqual({
      id: 4,
      changes: { name: 'Green tea', code: null, taxable: false, default_account: '4100' },
      line: [],
    });
  });

  it('given a null parent, when edited, then the category becomes a root', () => {
    expect(decideCategoryEdit(editRequest({ category_id: '3', parent_id: null }), null)).toEqual({
      id: 3,
      changes: { parent_id: null },
      line: [],
    });
  });

  it('given a parent in another branch, when set, then it hangs there, decided on the line read', () => {
    const tree: CategoryTree = { category: { id: 4 }, line: lineFrom3 };
    const req = editRequest({ category_id: '4', parent_id: '3' });
    expect(setsParent(req)).toBe(true);
    expect(decideCategoryEdit(req, tree)).toEqual({ id: 4, changes: { parent_id: 3 }, line: lineFrom3 });
  });

  it('given the category is the new parent or above it, when set, then the tree would loop and it is refused', () => {
    expect(() => decideCategoryEdit(editRequest({ category_id: '1', parent_id: '3' }), { category: { id: 1 }, line: lineFrom3 })).toThrow(
      expect.objectContaining({
        refusal: 'category.parentCycle',
        code: 'validation_failed',
        message: 'parent_id 3 would make category 1 its own ancestor',
      }),
    );
    expect(() =>
      decideCategoryEdit(editRequest({ category_id: '4', parent_id: '4' }), { category: { id: 4 }, line: [link(4, null)] }),
    ).toThrow(expect.objectContaining({ refusal: 'category.parentCycle' }));
  });

  it('given a tree that already loops, when a category is hung from it, then it is refused', () => {
    // 5 and 6 name each other: the read stops before meeting 5 again.
    const tree: CategoryTree = { category: { id: 7 }, line: [link(5, 6), link(6, 5)] };
    expect(() => decideCategoryEdit(editRequest({ category_id: '7', parent_id: '5' }), tree)).toThrow(
      expect.objectContaining({ refusal: 'category.parentCycle' }),
    );
  });

  it("given no such category, or a parent not the organization's, when edited, then that one is not found", () => {
    expect(() => decideCategoryEdit(editRequest({ category_id: '9', parent_id: '3' }), { category: null, line: lineFrom3 })).toThrow(
      expect.objectContaining({ refusal: 'category.categoryNotFound', message: 'Category 9 not found' }),
    );
    expect(() => decideCategoryEdit(editRequest({ category_id: '4', parent_id: '987' }), { category: { id: 4 }, line: [] })).toThrow(
      expect.objectContaining({ refusal: 'category.categoryNotFound', message: 'Category 987 not found' }),
    );
    expect(() => decideCategoryEdit(editRequest({ category_id: 'x', name: 'Y' }), null)).toThrow(
      expect.objectContaining({ refusal: 'category.categoryNotFound', message: 'Category x not found' }),
    );
  });
});
