import {
  checkAddLine,
  checkCancel,
  checkConvert,
  checkHeaderEdit,
  checkStatusMove,
  effectiveStatus,
  isPastValidity,
} from './quotation-status';

describe('quotation status machine', () => {
  it('allows draft <-> sent -> accepted and nothing else by edit', () => {
    expect(checkStatusMove('draft', 'sent')).toEqual({ ok: true });
    expect(checkStatusMove('sent', 'draft')).toEqual({ ok: true });
    expect(checkStatusMove('sent', 'accepted')).toEqual({ ok: true });
    expect(checkStatusMove('draft', 'draft')).toEqual({ ok: true });
    expect(checkStatusMove('accepted', 'accepted')).toEqual({ ok: true });
    for (const [from, to] of [
      ['draft', 'accepted'],
      ['accepted', 'sent'],
      ['accepted', 'draft'],
      ['converted', 'draft'],
      ['cancelled', 'draft'],
      ['expired', 'sent'],
      ['draft', 'converted'],
      ['sent', 'cancelled'],
      ['draft', 'expired'],
      ['cancelled', 'cancelled'],
    ] as const) {
      const verdict = checkStatusMove(from, to);
      expect(verdict.ok).toBe(false);
      if (!verdict.ok) expect(verdict.message).toContain(`in status ${from}`);
    }
  });

  it('names the way forward in a refusal', () => {
    const verdict = checkStatusMove('draft', 'accepted');
    expect(verdict).toEqual({ ok: false, message: 'Cannot move a quotation in status draft to accepted; from draft it can move to sent' });
    expect(checkStatusMove('sent', 'converted')).toEqual({
      ok: false,
      message: 'Cannot move a quotation in status sent to converted (use convert_to_invoice); from sent it can move to draft or accepted',
    });
  });

  it('expires draft and sent quotations the day after valid_until, never others', () => {
    expect(isPastValidity('2024-03-10', '2024-03-10')).toBe(false);
    expect(isPastValidity('2024-03-10', '2024-03-11')).toBe(true);
    expect(effectiveStatus('draft', '2024-03-10', '2024-03-10')).toBe('draft');
    expect(effectiveStatus('draft', '2024-03-10', '2024-03-11')).toBe('expired');
    expect(effectiveStatus('sent', '2024-03-10', '2025-01-01')).toBe('expired');
    expect(effectiveStatus('accepted', '2024-03-10', '2025-01-01')).toBe('accepted');
    expect(effectiveStatus('converted', '2024-03-10', '2025-01-01')).toBe('converted');
    expect(effectiveStatus('cancelled', '2024-03-10', '2025-01-01')).toBe('cancelled');
  });

  it('takes lines only while draft or sent', () => {
    expect(checkAddLine('draft').ok).toBe(true);
    expect(checkAddLine('sent').ok).toBe(true);
    for (const s of ['accepted', 'converted', 'cancelled', 'expired'] as const) expect(checkAddLine(s).ok).toBe(false);
  });

  it('takes no lines, edits or cancel while a conversion is unfinished', () => {
    expect(checkAddLine('draft', false).ok).toBe(true);
    for (const s of ['draft', 'sent'] as const) {
      const verdict = checkAddLine(s, true);
      expect(verdict.ok).toBe(false);
      if (!verdict.ok) expect(verdict.message).toContain(`in status ${s} whose conversion to an invoice is unfinished`);
    }
    for (const s of ['draft', 'sent', 'accepted'] as const) {
      expect(checkHeaderEdit(s, true)).toEqual({
        ok: false,
        untilConversionEnds: true,
        message: expect.stringContaining(`Cannot edit a quotation in status ${s} whose conversion to an invoice is unfinished`),
      });
      expect(checkCancel(s, true)).toEqual({
        ok: false,
        untilConversionEnds: true,
        message: expect.stringContaining('the conversion will complete'),
      });
    }
    // Expiry does not unfreeze it: a pending conversion may already hold an invoice.
    expect(checkCancel('expired', true).ok).toBe(false);
  });

  it('cancels anything but converted or cancelled quotations', () => {
    for (const s of ['draft', 'sent', 'accepted', 'expired'] as const) expect(checkCancel(s).ok).toBe(true);
    expect(checkCancel('converted').ok).toBe(false);
    expect(checkCancel('cancelled').ok).toBe(false);
  });

  it('converts draft, sent or accepted quotations only', () => {
    for (const s of ['draft', 'sent', 'accepted'] as const) expect(checkConvert(s).ok).toBe(true);
    for (const s of ['converted', 'cancelled', 'expired'] as const) {
      expect(checkConvert(s)).toEqual({
        ok: false,
        message: `Cannot convert a quotation in status ${s}; only draft, sent or accepted quotations can be converted`,
      });
    }
  });

  it('edits headers until the quotation is closed', () => {
    for (const s of ['draft', 'sent', 'accepted'] as const) expect(checkHeaderEdit(s).ok).toBe(true);
    for (const s of ['converted', 'cancelled', 'expired'] as const)
      expect(checkHeaderEdit(s)).toEqual({ ok: false, message: `Cannot edit a quotation in status ${s}` });
  });
});
