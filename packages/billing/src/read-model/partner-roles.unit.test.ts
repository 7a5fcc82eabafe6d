import { AppError } from '@bo/runtime';
import { partnerRoleProblem, requirePartnerRole } from './partner-roles';

describe('partner roles on documents', () => {
  it('lets customers and both on sales documents', () => {
    for (const kind of ['quotation', 'proforma', 'estimate', 'invoiceout', 'creditout'] as const) {
      expect(partnerRoleProblem(1, 'customer', kind)).toBeUndefined();
      expect(partnerRoleProblem(1, 'both', kind)).toBeUndefined();
      expect(partnerRoleProblem(1, 'vendor', kind)).toMatch(/partner 1 is a vendor; .* needs a customer or both partner/);
    }
  });

  it('lets vendors and both on purchase documents', () => {
    for (const kind of ['invoicein', 'creditin'] as const) {
      expect(partnerRoleProblem(2, 'vendor', kind)).toBeUndefined();
      expect(partnerRoleProblem(2, 'both', kind)).toBeUndefined();
      expect(partnerRoleProblem(2, 'customer', kind)).toMatch(/partner 2 is a customer; .* needs a vendor or both partner/);
    }
  });

  it('refuses with a 400 naming the field and the partner type', () => {
    let caught: unknown;
    try {
      requirePartnerRole({ id: 7, partner_type: 'customer' }, 'invoicein');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(AppError);
    expect(caught).toMatchObject({
      refusal: 'documentPartner.partnerRoleMismatch',
      status: 400,
      code: 'validation_failed',
      errors: [{ field: 'partner' }],
    });
    expect((caught as AppError).message).toBe('partner: partner 7 is a customer; a vendor bill (invoicein) needs a vendor or both partner');
  });
});
