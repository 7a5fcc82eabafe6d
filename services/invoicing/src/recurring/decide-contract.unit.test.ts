import type { InvoiceRow } from '../invoice/invoice.record';
import { decideContractCancel, decidePause } from './decide-contract';

const contract = (recurring_status: InvoiceRow['recurring_status']) => ({ invoicenumber: 'INV-00042', recurring_status });

describe('deciding a pause or a cancel of a recurring contract', () => {
  it('given an active contract, when paused, then only its status changes: its schedule stays to resume from', () => {
    expect(decidePause(contract('active'))).toEqual({ recurring_status: 'paused' });
  });

  it('given a contract that is not active, when paused, then it is refused naming its status', () => {
    for (const status of ['paused', 'cancelled', 'completed'] as const)
      expect(() => decidePause(contract(status))).toThrow(
        expect.objectContaining({
          refusal: 'recurring.pauseOfInactiveContract',
          message: `Recurring contract INV-00042 is ${status}; only an active contract can be paused`,
        }),
      );
  });

  it('given an active or paused contract, when cancelled, then it ends with no next run, its reason trimmed', () => {
    for (const status of ['active', 'paused'] as const)
      expect(decideContractCancel(contract(status), '  Customer ended the contract ')).toEqual({
        recurring_status: 'cancelled',
        recurring_next_run_date: null,
        recurring_cancellation_reason: 'Customer ended the contract',
      });
    // No reason, or a blank one, keeps none.
    expect(decideContractCancel(contract('active'), undefined).recurring_cancellation_reason).toBeNull();
    expect(decideContractCancel(contract('active'), '   ').recurring_cancellation_reason).toBeNull();
  });

  it('given a contract that ended, when cancelled, then it is refused as already ended', () => {
    for (const status of ['cancelled', 'completed'] as const)
      expect(() => decideContractCancel(contract(status), 'again')).toThrow(
        expect.objectContaining({
          refusal: 'recurring.contractAlreadyEnded',
          message: `Recurring contract INV-00042 is already ${status}`,
        }),
      );
  });
});
