import { defineRefusals } from '@bo/runtime';

/** Every refusal of the partners module, by name: what a decision throws, and what its tests assert. */
export const partnerRefusals = defineRefusals('partners', {
  /** No live partner of the organization by that id (another organization's, or a deleted one, is not found either). */
  partnerNotFound: (partnerId: number) => ({ code: 'not_found', message: `Partner ${partnerId} not found` }),
  /** A credit limit finer than the minor unit of the currency the partner's balance is kept in. */
  creditLimitTooFine: (message: string) => ({ code: 'validation_failed', field: 'credit_limit', message }),
  /** A partner still owing or owed money, or named by open documents or active contracts (deleteBlockers says which). */
  deleteBlocked: (message: string) => ({ code: 'validation_failed', field: 'partner_id', message }),
});
