import { parseWith, partners } from '@bo/contracts';
import {
  asStoredPartner,
  createPartnerNeedsOrganizationCurrency,
  decideCreatePartner,
  partnerCreated,
  type CreatePartnerRequest,
} from './decide-create-partner';
import type { PartnerRow } from './partner.record';

/** A create request as the contract's schema hands it to the handler. */
function request(body: Record<string, unknown>): CreatePartnerRequest {
  const parsed = parseWith(partners.createPartner.request, {
    org_id: 1,
    action: 'create',
    partnername: 'Acme',
    partner_type: 'customer',
    ...body,
  });
  if (!parsed.ok) throw new Error(`the example request is refused: ${JSON.stringify(parsed)}`);
  return parsed.value;
}
const ctx = { orgId: 7, userId: 'u1' };
const noLoad = { organizationCurrency: null };

describe('deciding a new partner', () => {
  it('given a bare request, when decided, then the row takes the defaults: the name as display name, limit 0, not dunning-blocked', () => {
    const row = decideCreatePartner(request({}), ctx, noLoad);
    expect(row).toMatchObject({
      org_id: 7,
      partnername: 'Acme',
      display_name: 'Acme',
      partner_type: 'customer',
      email: null,
      credit_limit: '0',
      currency: null,
      bank_accounts: '[]',
      dunning_blocked: false,
      created_by: 'u1',
      updated_by: 'u1',
    });
    expect(row).not.toHaveProperty('city');
  });

  it('given a display name with spaces, an empty e-mail and a structured address, when decided, then they are trimmed, none and kept', () => {
    const row = decideCreatePartner(request({ display_name: '  Acme Ltd ', email: '', city: ' Oslo ', country: 'NO' }), ctx, noLoad);
    expect(row).toMatchObject({ display_name: 'Acme Ltd', email: null, city: 'Oslo', country: 'NO' });
  });

  it('given a credit limit in cents, when decided, then the organization is not asked for its currency', () => {
    expect(createPartnerNeedsOrganizationCurrency(request({ credit_limit: 100.25 }))).toBe(false);
    expect(decideCreatePartner(request({ credit_limit: 100.25 }), ctx, noLoad).credit_limit).toBe('100.25');
  });

  it('given a limit finer than cents and no partner currency, when decided, then the organization’s currency judges it', () => {
    const req = request({ credit_limit: '10.125' });
    expect(createPartnerNeedsOrganizationCurrency(req)).toBe(true);
    expect(decideCreatePartner(req, ctx, { organizationCurrency: 'KWD' }).credit_limit).toBe('10.125');
    expect(() => decideCreatePartner(req, ctx, { organizationCurrency: 'EUR' })).toThrow(
      expect.objectContaining({
        refusal: 'partners.creditLimitTooFine',
        code: 'validation_failed',
        errors: [expect.objectContaining({ field: 'credit_limit' })],
      }),
    );
  });

  it('given a limit finer than cents and the partner’s own currency, when decided, then that currency judges it without a load', () => {
    const req = request({ credit_limit: '10.125', currency: 'BHD' });
    expect(createPartnerNeedsOrganizationCurrency(req)).toBe(false);
    expect(decideCreatePartner(req, ctx, noLoad).currency).toBe('BHD');
    expect(() => decideCreatePartner(request({ credit_limit: '10.125', currency: 'USD' }), ctx, noLoad)).toThrow(
      expect.objectContaining({ refusal: 'partners.creditLimitTooFine', message: expect.stringMatching(/credit_limit/) }),
    );
  });

  it('given the stored row, then the reply and the event carry the partner record', () => {
    const stored = {
      ...decideCreatePartner(request({ credit_limit: 100 }), ctx, noLoad),
      id: 12,
      balance: '0.00',
      receivable: '0.00',
      committed: '0.00',
      version: 1,
      bank_accounts: [],
      address_line1: null,
      address_line2: null,
      city: null,
      postal_code: null,
      region: null,
      country: null,
      created_at: new Date('2026-11-28T10:00:00Z'),
      updated_at: new Date('2026-11-28T10:00:00Z'),
      deleted_at: null,
    } as PartnerRow;
    const created = partnerCreated(stored);
    expect(created.message).toBe('Partner created successfully');
    expect(created.partner).toMatchObject({ id: 12, orgid: 7, partnername: 'Acme', credit_limit: 100, balance: 0, version: 1 });
  });

  it('given a decided row, when taken as stored, then it reads as the table keeps an insert: no balance, version 1, the address parts not given null', () => {
    const now = new Date('2026-11-28T10:00:00.123Z');
    const row = decideCreatePartner(request({ city: 'Graz', bank_accounts: [{ iban: 'AT611904300234573201' }] }), ctx, noLoad);
    const stored = asStoredPartner(row, 41, now);
    expect(stored).toMatchObject({
      id: 41,
      org_id: 7,
      balance: '0',
      receivable: '0',
      committed: '0',
      version: 1,
      city: 'Graz',
      country: null,
    });
    expect(stored).toMatchObject({ created_at: now, updated_at: now, deleted_at: null });
    expect(stored.bank_accounts).toEqual([{ iban: 'AT611904300234573201', bic: null, name: null }]);
    expect(stored).not.toHaveProperty('created_by');
    expect(partnerCreated(stored).partner).toMatchObject({
      id: 41,
      balance: 0,
      created_at: '2026-11-28T10:00:00',
      bank_accounts: stored.bank_accounts,
    });
  });
});
