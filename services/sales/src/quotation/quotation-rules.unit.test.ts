import type { QuotationRow } from './quotation.record';
import { decideCancel } from './quotation-rules';

/** A sent quotation, valid until the end of the year, never converted. */
const sent = {
  id: 5,
  quotation_number: 'QUO-00005',
  status: 'sent',
  valid_until: '2026-12-31',
  conversion_attempted_at: null,
} as unknown as QuotationRow;
const TODAY = '2026-11-29';

describe('deciding the cancel of a quotation', () => {
  it('given an open quotation, when cancelled, then it is, by its number', () => {
    expect(decideCancel(sent, TODAY)).toEqual({ message: 'Quotation QUO-00005 cancelled successfully' });
    expect(decideCancel({ ...sent, status: 'accepted' }, TODAY)).toEqual({ message: 'Quotation QUO-00005 cancelled successfully' });
  });

  it('given a quotation past its validity, when cancelled, then it is: an expired quotation may still be withdrawn', () => {
    expect(decideCancel(sent, '2027-01-01')).toEqual({ message: 'Quotation QUO-00005 cancelled successfully' });
  });

  it('given a converted or cancelled quotation, when cancelled, then it is refused, and for good', () => {
    for (const status of ['converted', 'cancelled'] as const) {
      expect(() => decideCancel({ ...sent, status }, TODAY)).toThrow(
        expect.objectContaining({
          refusal: 'quotation.refusedInStatus',
          status: 400,
          transient: false,
          message: expect.stringContaining(`in status ${status}`),
        }),
      );
    }
  });

  it('given a quotation frozen by a conversion under way, when cancelled, then it is refused until the conversion ends', () => {
    expect(() => decideCancel({ ...sent, conversion_attempted_at: new Date('2026-11-29T09:00:00Z') }, TODAY)).toThrow(
      expect.objectContaining({ refusal: 'quotation.refusedInStatus', transient: true }),
    );
  });
});
