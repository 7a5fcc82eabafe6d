import { decideAcceptance } from './decide-acceptance';
import { held } from './inbound-row.fixtures';

const bill = { partnerId: 31, notes: ['VAT as the document states it'] };

describe('deciding an accept of an import', () => {
  it('given an import held for review, when accepted with its bill, then it is closed naming its supplier and bill', () => {
    const acceptance = decideAcceptance(held, 41, bill)(900);
    expect(acceptance.inbound).toEqual({
      ...held,
      status: 'bill_created',
      partner_id: 31,
      invoice_id: 900,
      review_reasons: [],
      notes: ['VAT as the document states it'],
    });
    expect(acceptance.reply).toMatchObject({
      message: 'Bill created',
      inbound: { id: 41, status: 'bill_created', invoice_id: 900, review_reasons: [], seller: { partner_id: 31 } },
    });
    expect(acceptance.event).toEqual({
      inbound_id: 41,
      status: 'bill_created',
      syntax: 'ubl',
      invoice_number: 'F-2026-7',
      issue_date: '2026-11-02',
      partner_id: 31,
      invoice_id: 900,
      sha256: held.sha256,
    });
  });

  it('given no such import, then it is not found, before any bill is made', () => {
    expect(() => decideAcceptance(undefined, 41, bill)).toThrow(
      expect.objectContaining({ refusal: 'inbound.importNotFound', code: 'not_found' }),
    );
  });

  it('given an import no longer held for review (its bill made, or rejected), then the accept is refused as its state', () => {
    for (const status of ['bill_created', 'rejected'] as const)
      expect(() => decideAcceptance({ ...held, status }, 41, bill)).toThrow(
        expect.objectContaining({ refusal: 'inbound.acceptOfUnreviewableImport', code: 'invalid_state' }),
      );
  });
});
