import { decideCancellation, type CancellationState } from './decide-cancellation';

const today = '2026-11-28';
/** A one-off draft invoice, due next month. */
const draft: CancellationState = {
  invoicenumber: 'INV-0007',
  invoicestatus: 'draft',
  invoicedue: '2026-12-28',
  recurring_enabled: false,
  recurring_status: null,
};

describe('deciding a cancellation', () => {
  it('given a draft, when cancelled, then it is, with no recurrence to stop', () => {
    expect(decideCancellation(draft, today)).toEqual({ stopRecurrence: false });
  });

  it('given a proforma, when cancelled, then it is', () => {
    expect(decideCancellation({ ...draft, invoicestatus: 'proforma' }, today)).toEqual({ stopRecurrence: false });
  });

  it.each(['active', 'paused'] as const)('given a recurring template %s, when cancelled, then its recurrence stops with it', (status) => {
    expect(decideCancellation({ ...draft, recurring_enabled: true, recurring_status: status }, today)).toEqual({ stopRecurrence: true });
  });

  it.each(['completed', 'cancelled'] as const)(
    'given a recurring template %s, when cancelled, then its recurrence is left as it is',
    (status) => {
      expect(decideCancellation({ ...draft, recurring_enabled: true, recurring_status: status }, today)).toEqual({ stopRecurrence: false });
    },
  );

  it.each([
    ['open', 'it is open (posted)'],
    ['paid', 'it is paid'],
    ['cancelled', 'it is already cancelled'],
    ['written_off', 'it is written_off (posted)'],
  ] as const)('given an invoice %s, when cancelled, then it is refused as an invalid state', (status, reason) => {
    expect(() => decideCancellation({ ...draft, invoicestatus: status }, today)).toThrow(
      expect.objectContaining({
        refusal: 'invoice.cancellationRefused',
        code: 'invalid_state',
        message: expect.stringContaining(`Invoice INV-0007 cannot be cancelled: ${reason}`),
      }),
    );
  });

  it('given an open invoice past its due date, when cancelled, then the refusal names it overdue', () => {
    expect(() => decideCancellation({ ...draft, invoicestatus: 'open', invoicedue: '2026-11-27' }, today)).toThrow(
      expect.objectContaining({ code: 'invalid_state', message: expect.stringContaining('it is overdue (posted)') }),
    );
  });
});
