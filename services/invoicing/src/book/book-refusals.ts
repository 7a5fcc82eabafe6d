import { defineRefusals } from '@bo/runtime';

/** Every refusal of configuring the books, by name. */
export const bookRefusals = defineRefusals('book', {
  /** A change of the books' accounting currency or lock date that decideBooksChange refuses, named on its field. */
  booksChangeRefused: (refusal: { field: string; message: string }) => ({
    code: 'validation_failed',
    field: refusal.field,
    message: refusal.message,
  }),
});
