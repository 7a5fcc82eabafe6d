import { isRefusal } from '@bo/runtime';
import { bankLine } from './bank-line.fixtures';
import { decideIgnore, decideUnreconcile, type LineLoad } from './decide-line-status';

/** Line 21 of statement 3: 12.50 EUR received on 2 March from Acme, quoting nothing. */
const line = bankLine({ amount: '12.50', booking_date: '2026-03-02' });
const open: LineLoad = { line, reconciliation: null };
const reconciled: LineLoad = {
  line: { ...line, status: 'reconciled' },
  reconciliation: { id: 8, payment_id: 30, made_payment: true, journal_entry_id: null },
};

const refusalOf = (decide: () => unknown) => {
  try {
    decide();
  } catch (err) {
    return err;
  }
  throw new Error('not refused');
};

describe('deciding to set a bank line aside', () => {
  it('given an unmatched line, when ignored, then it is ignored and answered so', () => {
    const plan = decideIgnore(open, 21);
    expect(plan.line).toEqual({ ...line, status: 'ignored' });
    expect(plan.reply.message).toBe('Bank line 21 ignored');
    expect(plan.reply.line).toMatchObject({
      id: 21,
      statement: 3,
      amount: 12.5,
      booking_date: '2026-03-02',
      status: 'ignored',
      payment_id: null,
    });
  });

  it('given a suggested or ignored line, when ignored, then it is ignored', () => {
    expect(decideIgnore({ line: { ...line, status: 'suggested' }, reconciliation: null }, 21).line.status).toBe('ignored');
    expect(decideIgnore({ line: { ...line, status: 'ignored' }, reconciliation: null }, 21).line.status).toBe('ignored');
  });

  it('given a reconciled line, or none, when ignored, then it is refused', () => {
    expect(
      isRefusal(
        refusalOf(() => decideIgnore(reconciled, 21)),
        'bank.reconciledLineIgnored',
      ),
    ).toBe(true);
    expect(
      isRefusal(
        refusalOf(() => decideIgnore(undefined, 21)),
        'bank.bankLineNotFound',
      ),
    ).toBe(true);
  });
});

describe('deciding to open a bank line again', () => {
  it('given an ignored line, when unreconciled, then it is unmatched at once, nothing to undo', () => {
    const plan = decideUnreconcile({ line: { ...line, status: 'ignored' }, reconciliation: null }, 21);
    expect(plan.kind).toBe('reopen');
    expect(plan.line.status).toBe('unmatched');
    expect(plan.reply).toMatchObject({ message: 'Bank line 21 is open again', line: { status: 'unmatched', payment_id: null } });
  });

  it('given a reconciled line, when unreconciled, then its reconciliation is undone and it is answered unmatched, with no payment', () => {
    const plan = decideUnreconcile(reconciled, 21);
    expect(plan).toMatchObject({ kind: 'undo', reconciliation: reconciled.reconciliation, line: { status: 'unmatched' } });
    expect(plan.reply.line).toMatchObject({ status: 'unmatched', payment_id: null, journal_entry_id: null });
  });

  it('given an open line, a reconciled one without its reconciliation, or none, when unreconciled, then it is refused', () => {
    expect(
      isRefusal(
        refusalOf(() => decideUnreconcile(open, 21)),
        'bank.lineNotReconciled',
      ),
    ).toBe(true);
    expect(
      isRefusal(
        refusalOf(() => decideUnreconcile({ ...reconciled, reconciliation: null }, 21)),
        'bank.lineNotReconciled',
      ),
    ).toBe(true);
    expect(
      isRefusal(
        refusalOf(() => decideUnreconcile(undefined, 21)),
        'bank.bankLineNotFound',
      ),
    ).toBe(true);
  });
});
