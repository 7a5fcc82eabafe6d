import { decideRejection } from './decide-rejection';
import { held } from './inbound-row.fixtures';

describe('deciding a reject of an import', () => {
  it('given an import held for review, when rejected, then it is closed with its reason and gives up its supplier key', () => {
    const rejection = decideRejection(held, { id: 41, reason: 'Not ours' });
    expect(rejection.inbound).toMatchObject({ status: 'rejected', rejection_reason: 'Not ours', supplier_key: null, sha256: held.sha256 });
    expect(rejection.reply).toMatchObject({
      message: 'Import rejected',
      inbound: { id: 41, status: 'rejected', rejection_reason: 'Not ours', invoice_number: 'F-2026-7', received_at: '2026-11-03T10:00:00' },
    });
    expect(rejection.event).toEqual({
      inbound_id: 41,
      status: 'rejected',
      syntax: 'ubl',
      invoice_number: 'F-2026-7',
      issue_date: '2026-11-02',
      partner_id: null,
      invoice_id: null,
      sha256: held.sha256,
      reasons: ['Not ours'],
    });
  });

  it('given no import of that id, when rejected, then it is not found', () => {
    expect(() => decideRejection(undefined, { id: 41, reason: 'x' })).toThrow(
      expect.objectContaining({ refusal: 'inbound.importNotFound', code: 'not_found', message: 'Import 41 not found' }),
    );
  });

  it.each(['bill_created', 'rejected'] as const)('given an import %s, when rejected, then it is refused as an invalid state', (status) => {
    expect(() => decideRejection({ ...held, status }, { id: 41, reason: 'x' })).toThrow(
      expect.objectContaining({
        code: 'invalid_state',
        message: `Import 41 is ${status}; only an import held for review is rejected by hand`,
      }),
    );
  });
});
