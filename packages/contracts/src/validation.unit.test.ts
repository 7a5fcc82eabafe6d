import { parseWith } from './validation';
import { createPartnerRequest, editPartnerRequest } from './partners/schemas';

describe('parseWith', () => {
  it('names missing, mistyped and out-of-range fields', () => {
    const r = parseWith(createPartnerRequest, { org_id: '1', action: 'create', partner_type: 'friend', credit_limit: 'lots', email: 7 });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const byField = Object.fromEntries(r.errors.map((e) => [e.field, e.message]));
    expect(byField['partnername']).toBe('partnername is required');
    expect(byField['partner_type']).toBe('partner_type must be one of "customer", "vendor", "both"');
    expect(byField['credit_limit']).toContain('credit_limit');
    expect(byField['email']).toContain('email');
    expect(r.message).toMatch(/^Invalid request: /);
  });

  it('returns the parsed value with defaults and transforms applied', () => {
    const r = parseWith(createPartnerRequest, { org_id: '7', action: 'create', partnername: ' Acme ', partner_type: 'both', currency: 'eur', credit_limit: 10.5 });
    expect(r).toEqual({ ok: true, value: expect.objectContaining({ org_id: 7, partnername: 'Acme', currency: 'EUR', credit_limit: '10.5' }) });
  });
});

describe('parseWith on id fields', () => {
  it('says a missing id is required and a malformed one must be an integer', () => {
    const missing = parseWith(editPartnerRequest, { org_id: 1, action: 'edit' });
    expect(!missing.ok && missing.errors).toEqual([{ field: 'partner_id', message: 'partner_id is required' }]);
    const malformed = parseWith(editPartnerRequest, { org_id: 1, action: 'edit', partner_id: '4x2' });
    expect(!malformed.ok && malformed.errors).toEqual([{ field: 'partner_id', message: 'partner_id must be an integer' }]);
  });
});
