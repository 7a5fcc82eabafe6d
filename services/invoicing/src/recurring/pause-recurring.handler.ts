import { invoicing } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { contractChangeSteps } from './contract';
import { decidePause } from './decide-contract';

/** Load → decide (decidePause) → store, one statement as a rule (contractChangeSteps). */
export const pauseRecurringHandler = handler(
  invoicing.pauseRecurring,
  contractChangeSteps({ message: 'Recurring invoice paused successfully', decide: (contract) => decidePause(contract.row) }),
);
