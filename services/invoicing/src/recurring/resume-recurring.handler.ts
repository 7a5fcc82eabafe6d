import { invoicing } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { contractChangeSteps } from './contract';
import { decideResume } from './decide-contract';

/**
 * Load → decide (decideResume, on the organization's today) → store, one statement as a rule
 * (contractChangeSteps). Resumed, the contract bills its partner again: refused while a delete of the
 * partner stands (partner-delete-fence.ts), checked in the store's statement.
 */
export const resumeRecurringHandler = handler(
  invoicing.resumeRecurring,
  contractChangeSteps({
    message: 'Recurring invoice resumed successfully',
    decide: (contract) => decideResume(contract.row, contract.today),
    fencesPartner: true,
  }),
);
