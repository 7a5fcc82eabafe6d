import type { InvoiceRow } from '../invoice/invoice.record';
import { runDate } from '../domain/recurrence';
import { openInvoiceRow } from '../invoice/invoice-row.fixtures';
import { decideContractCancel, decideGeneration, decideNextChild, decidePause, decideResume } from './decide-contract';

const contract = (recurring_status: InvoiceRow['recurring_status']) => ({ invoicenumber: 'INV-00042', recurring_status });

describe('deciding a pause, a resume or a cancel of a recurring contract', () => {
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

  const monthly = (recurring_status: InvoiceRow['recurring_status'], recurring_next_index: number) => ({
    ...contract(recurring_status),
    recurring_start_date: '2026-01-31',
    recurring_frequency: 'monthly' as const,
    recurring_next_index,
  });

  it('given a paused contract whose next run is still ahead, when resumed, then it is active with that run unchanged', () => {
    // Paused before its run of 2026-04-30 (index 3), resumed on 2026-04-10.
    expect(decideResume(monthly('paused', 3), '2026-04-10')).toEqual({
      recurring_status: 'active',
      recurring_next_index: 3,
      recurring_next_run_date: '2026-04-30',
    });
    // Resumed on the run's own day: today's run is not in the past.
    expect(decideResume(monthly('paused', 3), '2026-04-30').recurring_next_run_date).toBe('2026-04-30');
  });

  it('given a contract paused over several runs, when resumed, then the runs missed are skipped, not caught up', () => {
    // Due on 2026-02-28 (index 1), resumed on 2026-06-01: the first run not before today is 2026-06-30.
    const resumed = decideResume(monthly('paused', 1), '2026-06-01');
    expect(resumed).toEqual({ recurring_status: 'active', recurring_next_index: 5, recurring_next_run_date: '2026-06-30' });
    expect(resumed.recurring_next_run_date).toBe(runDate('2026-01-31', 'monthly', 5));
  });

  it('given a contract that is not paused, when resumed, then it is refused naming its status', () => {
    for (const status of ['active', 'cancelled', 'completed'] as const)
      expect(() => decideResume(monthly(status, 1), '2026-06-01')).toThrow(
        expect.objectContaining({ refusal: 'recurring.resumeOfUnpausedContract', message: expect.stringContaining(status) }),
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

describe('deciding a child of a recurring contract', () => {
  /** INV-0007 as a monthly contract from 31 January 2026, billed 1 November with 30 days to pay, its next run the fourth (30 April). */
  const parent = openInvoiceRow({
    invoicestatus: 'draft',
    recurring_enabled: true,
    recurring_status: 'active',
    recurring_frequency: 'monthly',
    recurring_start_date: '2026-01-31',
    recurring_next_index: 3,
    recurring_next_run_date: '2026-04-30',
    recurring_generated: 2,
    recurring_occurrences: 0,
    currency: 'EUR',
    allowances_charges: [],
  });

  it('given an active contract, when its next child is made, then it is a draft dated on the run, due as the parent was', () => {
    const { values, contract } = decideNextChild(parent);
    expect(values).toMatchObject({
      invoicestatus: 'draft',
      partner_id: 40,
      invoicedatetime: new Date('2026-04-30T00:00:00Z'),
      invoicedue: '2026-05-30',
      parent_id: 7,
      run_date: '2026-04-30',
      currency: 'EUR',
    });
    expect(contract).toEqual({
      recurring_generated: 3,
      recurring_next_index: 4,
      recurring_next_run_date: '2026-05-31',
      recurring_status: 'active',
    });
  });

  it('given a contract of three runs that made two, when the third is made, then the contract completes with no next run', () => {
    expect(decideNextChild({ ...parent, recurring_occurrences: 3 }).contract).toEqual({
      recurring_generated: 3,
      recurring_next_index: 4,
      recurring_next_run_date: null,
      recurring_status: 'completed',
    });
  });

  it('given a contract, when a child is asked by hand, then only an active one makes it, and not before the period before its run began', () => {
    expect(() => decideGeneration(parent, '2026-03-31')).not.toThrow();
    expect(() => decideGeneration(parent, '2026-03-30')).toThrow(
      expect.objectContaining({ refusal: 'recurring.childTooEarly', message: expect.stringContaining('from 2026-03-31 on') }),
    );
    expect(() => decideGeneration({ ...parent, recurring_status: 'paused' }, '2026-04-30')).toThrow(
      expect.objectContaining({ refusal: 'recurring.childOfInactiveContract' }),
    );
  });
});
