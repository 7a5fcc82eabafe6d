import type { FieldError } from '@bo/contracts';
import { defineRefusals } from '@bo/runtime';

const CONTENT = 'content_base64';

/** Every refusal of inbound e-invoices (imports), by name: what their handlers throw, and what their tests assert. */
export const inboundRefusals = defineRefusals('inbound', {
  /** No import of the organization by that id. */
  importNotFound: (importId: number) => ({ code: 'not_found', message: `Import ${importId} not found` }),
  /** An accept of an import that is not held for review. */
  acceptOfUnreviewableImport: (importId: number, status: string) => ({
    code: 'invalid_state',
    message: `Import ${importId} is ${status}; only an import held for review is accepted`,
  }),
  /** A reject of an import that is not held for review. */
  rejectOfUnreviewableImport: (importId: number, status: string) => ({
    code: 'invalid_state',
    message: `Import ${importId} is ${status}; only an import held for review is rejected by hand`,
  }),
  /** A reviewer's choices (supplier, a product per line) that acceptChoices refuses, each named. */
  choicesRefused: (errors: FieldError[]) => ({ code: 'validation_failed', message: errors.map((e) => e.message).join('; '), errors }),
  /** An accept whose bill still cannot be made with the choices given, each reason on the field it concerns. */
  billStillCannotBeMade: (reasons: readonly string[]) => ({
    code: 'validation_failed',
    message: `The bill still cannot be made: ${reasons.join('; ')}`,
    errors: reasons.map((r) => ({
      field: r.startsWith('supplier') ? 'partner' : /^(line|products)/.test(r) ? 'line_products' : 'id',
      message: r,
    })),
  }),
  /** Lines sharing a seller item id (or GTIN) given two products: the supplier's mapping keeps one. */
  twoProductsForOneKey: (key: string, earlier: number, product: string) => ({
    code: 'validation_failed',
    field: 'line_products',
    message: `line_products: the lines with ${key} were given two products (${earlier} and ${product}); the supplier's mapping keeps one`,
  }),
  /** A list of imports over a range of days that starts after it ends (its field message is its own). */
  receivedRangeReversed: () => ({
    code: 'validation_failed',
    message: 'date_from must not be after date_to',
    errors: [{ field: 'date_from', message: 'date_from is after date_to' }],
  }),
  /** An import of no bytes. */
  contentEmpty: () => ({ code: 'validation_failed', field: CONTENT, message: `${CONTENT} holds no bytes` }),
  /** An import whose bytes the XML reader refuses (too large, too deep, not XML ...). */
  contentUnreadable: (problem: string, reason: string) => ({
    code: 'validation_failed',
    field: CONTENT,
    message: `${CONTENT}: ${problem} (${reason})`,
  }),
});
