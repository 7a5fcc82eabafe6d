import { parseWith, partners } from '@bo/contracts';
import { decideEditAlone, decideEditPartner, type EditPartnerRequest, type EditPartnerState } from './decide-edit-partner';
import type { PartnerRow } from './partner.record';

const current: PartnerRow = {
  id: 12,
  org_id: 7,
  partnername: 'Acme',
  display_name: 'Acme Trading',
  partner_type: 'customer',
  email: 'a@acme.test',
  phone: '555',
  address: null,
  address_line1: '1 Main St',
  address_line2: null,
  city: 'Oslo',
  postal_code: null,
  region: null,
  country: 'NO',
  tax_number: null,
  credit_limit: '100.00',
  balance: '40.00',
  receivable: '40.00',
  committed: '0.00',
  currency: null,
  payment_terms: null,
  contact_person: null,
  notes: null,
  peppol_id: null,
  bank_accounts: [],
  dunning_blocked: false,
  version: 3,
  created_at: new Date('2026-01-01T00:00:00Z'),
  updated_at: new Date('2026-02-01T00:00:00Z'),
  deleted_at: null,
};
const now = new Date('2026-11-28T10:00:00Z');
// Owed 40.00 EUR and 50.00 USD, whose documents were posted worth 45.00 EUR (0.9 EUR per USD).
const balances: EditPartnerState['balances'] = [
  { currency: 'EUR', balance: '40.00', receivable: '40.00', committed: '0', documents_total: '40.00', documents_accounting: '40.00' },
  { currency: 'USD', balance: '50.00', receivable: '50.00', committed: '0', documents_total: '50.00', documents_accounting: '45.00' },
];
const state: EditPartnerState = { current, organizationCurrency: 'EUR', balances, now };
const ctx = { orgId: 7, userId: 'u2' };

function request(body: Record<string, unknown>): EditPartnerRequest {
  const parsed = parseWith(partners.editPartner.request, { org_id: 7, action: 'edit', partner_id: 12, ...body });
  if (!parsed.ok) throw new Error(`the example request is refused: ${JSON.stringify(parsed)}`);
  return parsed.value;
}

describe('deciding a partner edit', () => {
  it('given a partner, when one field is edited, then only it changes, the version goes up and the record is the one stored', () => {
    const edit = decideEditPartner(state, request({ phone: '777' }), ctx);
    expect(edit.changes).toEqual({ phone: '777', updated_by: 'u2' });
    expect(edit.partner).toMatchObject({
      id: 12,
      phone: '777',
      email: 'a@acme.test',
      city: 'Oslo',
      version: 4,
      balance: 40,
      credit_limit: 100,
    });
    expect(edit.partner.updated_at).toMatch(/^2026-11-28/);
  });

  it('given an empty e-mail, a blank display name and a structured address with spaces, then the e-mail is cleared, the name is shown and the address trimmed', () => {
    const edit = decideEditPartner(
      state,
      request({ email: '', display_name: ' ', partnername: 'Acme AS', region: '', city: ' Bergen ' }),
      ctx,
    );
    expect(edit.changes).toMatchObject({ email: null, display_name: 'Acme AS', partnername: 'Acme AS', region: null, city: 'Bergen' });
    expect(edit.partner).toMatchObject({ email: null, display_name: 'Acme AS', region: null, city: 'Bergen' });
  });

  it('given bank accounts, then they are stored as JSON text and answered as records', () => {
    const edit = decideEditPartner(state, request({ bank_accounts: [{ iban: 'NO9386011117947', name: ' Main ' }] }), ctx);
    expect(typeof edit.changes.bank_accounts).toBe('string');
    expect(edit.partner.bank_accounts).toEqual([{ iban: 'NO9386011117947', bic: null, name: 'Main' }]);
  });

  it('given a limit finer than cents, then the currency the balance will be kept in judges it: the new one, the kept one, else the organization’s', () => {
    const tooFine = expect.objectContaining({ refusal: 'partners.creditLimitTooFine', message: expect.stringMatching(/credit_limit/) });
    expect(() => decideEditPartner(state, request({ credit_limit: '10.125' }), ctx)).toThrow(tooFine);
    expect(
      decideEditPartner({ ...state, organizationCurrency: 'KWD' }, request({ credit_limit: '10.125' }), ctx).partner.credit_limit,
    ).toBe(10.125);
    expect(decideEditPartner(state, request({ credit_limit: '10.125', currency: 'BHD' }), ctx).changes).toMatchObject({ currency: 'BHD' });
    const kwdPartner = { ...state, current: { ...current, currency: 'KWD' } };
    expect(() => decideEditPartner(kwdPartner, request({ credit_limit: '10.125', currency: 'USD' }), ctx)).toThrow(tooFine);
  });

  it('given no such partner, then it is not found', () => {
    expect(() => decideEditPartner({ ...state, current: null }, request({ phone: '1' }), ctx)).toThrow(
      expect.objectContaining({ refusal: 'partners.partnerNotFound', code: 'not_found', message: 'Partner 12 not found' }),
    );
  });

  it('given balances in two currencies, when the partner is given a currency of its own, then its figures are weighed again in it', () => {
    const edit = decideEditPartner(state, request({ currency: 'USD' }), ctx);
    // 40 EUR at 0.9 EUR per USD is 44.44 USD, beside the 50.00 USD owed as they are.
    expect(edit.changes).toMatchObject({ currency: 'USD', balance: '94.44', receivable: '94.44', committed: '0' });
    expect(edit.partner).toMatchObject({ currency: 'USD', balance: 94.44 });
  });

  it('given a partner, when its currency is sent unchanged, then its figures stay as they are', () => {
    const edit = decideEditPartner({ ...state, current: { ...current, currency: 'EUR' } }, request({ currency: 'EUR' }), ctx);
    expect(edit.changes).toEqual({ currency: 'EUR', updated_by: 'u2' });
  });

  it('given an edit of plain fields, when decided alone, then the request decides it; given a limit, a currency or a blank display name, then the partner must be read', () => {
    expect(decideEditAlone(request({ phone: '1', email: '', display_name: ' Shown ' }), ctx)).toEqual({
      updated_by: 'u2',
      phone: '1',
      email: null,
      display_name: 'Shown',
    });
    expect(decideEditAlone(request({ credit_limit: '10' }), ctx)).toBeUndefined();
    expect(decideEditAlone(request({ currency: 'EUR' }), ctx)).toBeUndefined();
    expect(decideEditAlone(request({ display_name: '  ' }), ctx)).toBeUndefined();
  });

  it('given an edit the request alone decides, then the transaction path decides the same columns', () => {
    const req = request({ phone: '1', notes: 'n', city: ' Graz ', dunning_blocked: true });
    expect(decideEditPartner(state, req, ctx).changes).toEqual(decideEditAlone(req, ctx));
  });
});
