import { firstRunIndexNotBefore, runDate } from '../domain/recurrence';
import type { InvoiceRow } from '../invoice/invoice.record';
import { recurringRefusals } from './recurring-refusals';

/** What a pause, a resume or a cancel changes on a recurring contract: the columns it writes. */
export type ContractChanges = Pick<
  Partial<InvoiceRow>,
  'recurring_status' | 'recurring_next_index' | 'recurring_next_run_date' | 'recurring_cancellation_reason'
>;

/** A contract as a pause or cancel decides on it: a recurring parent (readContract). */
type Contract = Pick<InvoiceRow, 'invoicenumber' | 'recurring_status'>;

/** A contract as a resume decides on it: its status and its schedule. */
type Schedule = Contract & Pick<InvoiceRow, 'recurring_start_date' | 'recurring_frequency' | 'recurring_next_index'>;

/** A pause, decided: only an active contract pauses; its schedule stays, to resume from. */
export function decidePause(contract: Contract): ContractChanges {
  if (contract.recurring_status !== 'active')
    throw recurringRefusals.pauseOfInactiveContract(contract.invoicenumber, contract.recurring_status);
  return { recurring_status: 'paused' };
}

/**
 * A resume, decided: only a paused contract resumes. Periods that passed while it was paused are
 * skipped, not caught up: its next run is the first date of its schedule not before `today` (the
 * organization's), counting on from the run it was due to make next.
 */
export function decideResume(contract: Schedule, today: string): ContractChanges {
  if (contract.recurring_status !== 'paused')
    throw recurringRefusals.resumeOfUnpausedContract(contract.invoicenumber, contract.recurring_status);
  const start = contract.recurring_start_date as string;
  const frequency = contract.recurring_frequency!;
  const index = firstRunIndexNotBefore(start, frequency, contract.recurring_next_index, today);
  return { recurring_status: 'active', recurring_next_index: index, recurring_next_run_date: runDate(start, frequency, index) };
}

/** A cancel, decided: an active or paused contract ends, with no next run, keeping the reason given (blank: none). */
export function decideContractCancel(contract: Contract, reason: string | undefined): ContractChanges {
  if (contract.recurring_status !== 'active' && contract.recurring_status !== 'paused')
    throw recurringRefusals.contractAlreadyEnded(contract.invoicenumber, contract.recurring_status);
  return { recurring_status: 'cancelled', recurring_next_run_date: null, recurring_cancellation_reason: reason?.trim() || null };
}
