import { defineRefusals } from '@bo/runtime';

/** Every refusal of the category tree, by name. */
export const categoryRefusals = defineRefusals('category', {
  /** No category of the organization by that id (or an id that is none). */
  categoryNotFound: (categoryId: string) => ({ code: 'not_found', message: `Category ${categoryId} not found` }),
  /** A code another category of the organization has. */
  codeTaken: (code: string | null | undefined) => ({ code: 'duplicate', field: 'code', message: `Category code ${code} already exists` }),
  /** A parent under the category itself: the tree would loop. */
  parentCycle: (parentId: string, categoryId: string) => ({
    code: 'validation_failed',
    field: 'parent_id',
    message: `parent_id ${parentId} would make category ${categoryId} its own ancestor`,
  }),
});
