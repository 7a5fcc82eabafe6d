import { FILLED_IN } from '@bo/runtime';
import { decideDispute, disputeReply, type DisputeState } from './decide-dispute';

/** A customer invoice with no dispute mark. */
const open: DisputeState = {
  invoicetype: 'invoiceout',
  invoicenumber: 'INV-0042',
  dunning_disputed: false,
  dunning_dispute_reason: null,
  dunning_disputed_at: null,
};
const marked: DisputeState = {
  ...open,
  dunning_disputed: true,
  dunning_dispute_reason: 'Goods damaged',
  dunning_disputed_at: '2026-11-01T08:00:00',
};

describe('deciding a dispute mark', () => {
  it('given an unmarked customer invoice, when disputed, then the mark is set now with its reason', () => {
    const dispute = decideDispute(open, { invoice_id: 42, disputed: true, reason: 'Goods damaged' });
    expect(dispute).toEqual({ invoice_id: 42, invoicenumber: 'INV-0042', disputed: true, reason: 'Goods damaged', disputedAt: 'now' });
    expect(disputeReply(dispute, '2026-11-29T10:00:00')).toEqual({
      message: 'Invoice INV-0042 marked disputed',
      invoice_id: 42,
      invoicenumber: 'INV-0042',
      disputed: true,
      reason: 'Goods damaged',
      disputed_at: '2026-11-29T10:00:00',
    });
    // Decided on a read, the time is the store's: filled in.
    expect(disputeReply(dispute).disputed_at).toBe(FILLED_IN);
  });

  it('given a marked invoice, when disputed again with no reason, then it keeps its first time and reason', () => {
    const dispute = decideDispute(marked, { invoice_id: 42, disputed: true });
    expect(dispute).toMatchObject({ reason: 'Goods damaged', disputedAt: { kept: '2026-11-01T08:00:00' } });
    expect(disputeReply(dispute).disputed_at).toBe('2026-11-01T08:00:00');
  });

  it('given a marked invoice, when disputed again with a reason, then the reason is replaced and the time kept', () => {
    expect(decideDispute(marked, { invoice_id: 42, disputed: true, reason: 'Wrong quantity' })).toMatchObject({
      reason: 'Wrong quantity',
      disputedAt: { kept: '2026-11-01T08:00:00' },
    });
  });

  it('given a marked invoice, when cleared, then the reason and time go with the mark', () => {
    const dispute = decideDispute(marked, { invoice_id: 42, disputed: false, reason: 'ignored' });
    expect(dispute).toMatchObject({ disputed: false, reason: null, disputedAt: null });
    expect(disputeReply(dispute)).toMatchObject({ message: 'Invoice INV-0042 no longer disputed', disputed_at: null });
  });

  it('given no invoice of that id, when disputed, then it is not found', () => {
    expect(() => decideDispute(undefined, { invoice_id: 999, disputed: true })).toThrow(
      expect.objectContaining({ refusal: 'invoice.invoiceNotFound', code: 'not_found' }),
    );
  });

  it('given a vendor bill, when disputed, then it is refused on invoice_id', () => {
    expect(() => decideDispute({ ...open, invoicetype: 'invoicein' }, { invoice_id: 42, disputed: true })).toThrow(
      expect.objectContaining({
        code: 'validation_failed',
        message: 'invoice 42 is a invoicein: only customer invoices (invoiceout) get reminders',
      }),
    );
  });
});
