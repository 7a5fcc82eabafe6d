import { invoicing } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { contractChangeSteps } from './contract';
import { decidePause } from './decide-contract';

/** Load → decide (decidePause) → store, one statement as a rule (contractChangeSteps). */
export const pauseRecurringHandler = handler(
  invoicing.pauseRecurring,
  contractChangeSteps('Recurring invoice paused successfully', (contract) => decidePause(contract)),
);
