import { invoicing } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { contractChangeSteps } from './contract';
import { decideContractCancel } from './decide-contract';

/** Load → decide (decideContractCancel) → store, one statement as a rule (contractChangeSteps). */
export const cancelRecurringHandler = handler(
  invoicing.cancelRecurring,
  contractChangeSteps({
    message: 'Recurring contract cancelled successfully',
    decide: (contract, req: { id: number; cancellation_reason?: string }) => decideContractCancel(contract.row, req.cancellation_reason),
  }),
);
