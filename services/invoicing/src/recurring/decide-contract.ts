import type { InvoiceRow } from '../invoice/invoice.record';
import { recurringRefusals } from './recurring-refusals';

/** What a pause or a cancel changes on a recurring contract: the columns it writes. */
export type ContractChanges = Pick<Partial<InvoiceRow>, 'recurring_status' | 'recurring_next_run_date' | 'recurring_cancellation_reason'>;

/** A contract as a pause or cancel decides on it: a recurring parent (lockContract, readContract). */
type Contract = Pick<InvoiceRow, 'invoicenumber' | 'recurring_status'>;

/** A pause, decided: only an active contract pauses; its schedule stays, to resume from. */
export function decidePause(contract: Contract): ContractChanges {
  if (contract.recurring_status !== 'active')
    throw recurringRefusals.pauseOfInactiveContract(contract.invoicenumber, contract.recurring_status);
  return { recurring_status: 'paused' };
}

/** A cancel, decided: an active or paused contract ends, with no next run, keeping the reason given (blank: none). */
export function decideContractCancel(contract: Contract, reason: string | undefined): ContractChanges {
  if (contract.recurring_status !== 'active' && contract.recurring_status !== 'paused')
    throw recurringRefusals.contractAlreadyEnded(contract.invoicenumber, contract.recurring_status);
  return { recurring_status: 'cancelled', recurring_next_run_date: null, recurring_cancellation_reason: reason?.trim() || null };
}
