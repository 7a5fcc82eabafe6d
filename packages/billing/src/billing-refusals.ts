import type { ErrorCode, FieldError } from '@bo/contracts';
import { defineRefusals } from '@bo/runtime';

/**
 * How the checks sales and invoicing share refuse, by name (docs/adding-an-operation.md, "Refuse by
 * name"): a document's taxes, its lines against the catalog, its partner. Each is a 400 thrown
 * before anything is written; the services pass them on as they come.
 */

/** A document's taxes (document-taxes.ts). */
export const documentTaxRefusals = defineRefusals('documentTaxes', {
  /** The document's amounts reach what the books cannot hold (MAX_DOCUMENT_AMOUNT). */
  amountsTooLarge: (message: string) => ({ code: 'validation_failed', field: 'allowances_charges', message }),
  /** What the tax rules refuse of the document, each field named (`line_items.2.tax_category`, `buyer.vat_id` ...). */
  taxesRefused: (errors: readonly FieldError[]) => ({
    code: 'validation_failed',
    message: `The document's taxes are refused: ${errors.map((e) => e.message).join('; ')}`,
    errors: [...errors],
  }),
  /** A `reverse_charge_rate` on a row that is not reverse charge (AE), each named. */
  reverseChargeRateOutsideAe: (errors: readonly FieldError[]) => ({
    code: 'validation_failed',
    message: errors.map((e) => e.message).join('; '),
    errors: [...errors],
  }),
  /** A stored document the rules now refuse, so it is not rendered with figures they disagree with. */
  storedTaxesRefusedNow: (what: string, problems: string) => ({
    code: 'invalid_state',
    message: `${what} cannot be rendered: its stored taxes are refused by the rules now (${problems})`,
  }),
});

/** A document's lines checked against the catalog (catalog-lines.ts). */
export const catalogLineRefusals = defineRefusals('catalogLines', {
  /** Products, variants or locations the catalog does not know (or not as named), each line's field named. */
  unknownCatalogRecords: (errors: readonly FieldError[]) => ({
    code: 'not_found',
    message: `Unknown catalog records: ${errors.map((e) => e.message).join('; ')}`,
    errors: [...errors],
  }),
  /** Lines the catalog knows but that name no tax rate and have no default, each named. */
  linesWithoutTaxRate: (errors: readonly FieldError[]) => ({
    code: 'validation_failed',
    message: `Invalid request: ${errors.map((e) => e.message).join('; ')}`,
    errors: [...errors],
  }),
  /** What the catalog itself refused of the lines asked about (an id of the wrong form, too many ids), as it said it. */
  catalogRefusedLines: (code: ErrorCode, message: string, errors: FieldError[] | undefined) =>
    errors
      ? { code, message: `The catalog refused the lines: ${message}`, errors }
      : { code, message: `The catalog refused the lines: ${message}` },
});

/** A document's partner (read-model/partner-directory.ts, partner-roles.ts). */
export const documentPartnerRefusals = defineRefusals('documentPartner', {
  /** No live partner of the organization by that id, named on `field`. */
  partnerNotFound: (partnerId: number, field: string) => ({ code: 'not_found', field, message: `Partner ${partnerId} not found` }),
  /** A partner whose type does not fit the document (a vendor on a sale ...), named on `field`. */
  partnerRoleMismatch: (field: string, problem: string) => ({ code: 'validation_failed', field, message: `${field}: ${problem}` }),
});
