import { canTakePayment, cancelRefusal, effectiveStatus, isEditable } from './status';

describe('invoice status', () => {
  it('reads an open invoice past its due date as overdue, and only then', () => {
    expect(effectiveStatus('open', '2025-03-09', '2025-03-10')).toBe('overdue');
    expect(effectiveStatus('open', '2025-03-10', '2025-03-10')).toBe('open');
    expect(effectiveStatus('open', null, '2025-03-10')).toBe('open');
    expect(effectiveStatus('paid', '2020-01-01', '2025-03-10')).toBe('paid');
    expect(effectiveStatus('draft', '2020-01-01', '2025-03-10')).toBe('draft');
  });

  it('cancels only drafts and proformas, saying why otherwise', () => {
    expect(cancelRefusal('draft')).toBeNull();
    expect(cancelRefusal('proforma')).toBeNull();
    expect(cancelRefusal('open')).toMatch(/only draft or proforma/);
    expect(cancelRefusal('overdue')).toMatch(/only draft or proforma/);
    expect(cancelRefusal('paid')).toMatch(/paid/);
    expect(cancelRefusal('cancelled')).toMatch(/already cancelled/);
  });

  it('takes lines while draft or proforma and payments while open or overdue', () => {
    expect(isEditable('draft') && isEditable('proforma')).toBe(true);
    expect(isEditable('open')).toBe(false);
    expect(canTakePayment('open') && canTakePayment('overdue')).toBe(true);
    expect(canTakePayment('draft') || canTakePayment('paid') || canTakePayment('cancelled')).toBe(false);
  });
});
