import { z } from 'zod';
import { MAX_REPORTED_ERRORS, parseWith } from './validation';
import { invalidUnicodeMessage } from './fields';
import { createPartnerRequest, editPartnerRequest } from './partners/schemas';
import { adjustStockRequest, createVariantRequest } from './catalog/schemas';
import { listLocations } from './catalog/operations';
import { listInvoicesRequest } from './invoicing/schemas';

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
    const r = parseWith(createPartnerRequest, {
      org_id: '7',
      action: 'create',
      partnername: ' Acme ',
      partner_type: 'both',
      currency: 'eur',
      credit_limit: 10.5,
    });
    expect(r).toEqual({
      ok: true,
      value: expect.objectContaining({ org_id: 7, partnername: 'Acme', currency: 'EUR', credit_limit: '10.5' }),
    });
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

describe('parseWith on hostile input', () => {
  it('names the field holding a control character or a lone surrogate', () => {
    const r = parseWith(createPartnerRequest, {
      org_id: 1,
      action: 'create',
      partnername: 'Ac\u0000me',
      partner_type: 'customer',
      notes: 'a\uD800',
    });
    expect(!r.ok && r.errors).toEqual([
      { field: 'partnername', message: 'partnername must not contain control characters' },
      { field: 'notes', message: `notes ${invalidUnicodeMessage}` },
    ]);
  });

  it('lets multi-line fields keep line breaks and refuses them in names', () => {
    expect(
      parseWith(createPartnerRequest, {
        org_id: 1,
        action: 'create',
        partnername: 'Acme',
        partner_type: 'customer',
        address: '1 Road\r\nTown\tX',
      }).ok,
    ).toBe(true);
    const r = parseWith(createPartnerRequest, { org_id: 1, action: 'create', partnername: 'Acme\nLtd', partner_type: 'customer' });
    expect(!r.ok && r.errors).toEqual([{ field: 'partnername', message: 'partnername must not contain control characters' }]);
  });

  it('checks object keys that become data, naming the key printably', () => {
    const r = parseWith(adjustStockRequest, { org_id: 1, action: 'stock_adjustment', product_id: 1, qty_locations: { 'a\u0000': 1 } });
    expect(!r.ok && r.errors).toEqual([
      { field: 'qty_locations.a\\u0000', message: 'qty_locations.a\\u0000 must not contain control characters' },
    ]);
    const v = parseWith(createVariantRequest, {
      org_id: 1,
      action: 'create_variant',
      parent_product_id: 1,
      variant_name: 'V',
      options: { 'col\u0085or': 'red', size: 'L\u0007' },
    });
    expect(!v.ok && v.errors.map((e) => e.field)).toEqual(['options.col\\u0085or', 'options.size']);
  });

  it('never echoes unstorable characters in a message', () => {
    const r = parseWith(createPartnerRequest, {
      org_id: 1,
      action: 'create',
      partnername: 'A',
      partner_type: 'customer',
      credit_limit: '\u0000\uD800x',
    });
    // The control characters are what the message must not carry.
    // eslint-disable-next-line no-control-regex
    expect(!r.ok && r.message).not.toMatch(/[\u0000-\u001F\uD800-\uDFFF]/);
  });

  it('refuses a pathological shape before the schema sees it', () => {
    let deep: unknown = {};
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    const r = parseWith(createPartnerRequest, { org_id: 1, action: 'create', partnername: 'A', partner_type: 'customer', extra: deep });
    expect(!r.ok && r.errors).toEqual([
      { field: expect.stringMatching(/^extra\.a\.a/), message: expect.stringMatching(/is nested deeper than 32 levels$/) },
    ]);
    const ids = parseWith(listInvoicesRequest, { org_id: 1, partner_ids: new Array(100_000).fill('x') });
    expect(!ids.ok && ids.errors).toEqual([{ field: 'partner_ids', message: 'partner_ids must have at most 1000 items' }]);
    // Input the system made itself (a reply listing every location) skips the limits when told to.
    expect(parseWith(z.array(z.number()), new Array(5000).fill(1), { limits: null }).ok).toBe(true);
    const locations = new Array(5000).fill({
      warehouse_id: '1',
      warehouse_name: 'W',
      location_id: '1',
      location_name: 'L',
      is_default: false,
    });
    expect(parseWith(listLocations.reply, { message: 'ok', locations }, { limits: null }).ok).toBe(true);
    expect(parseWith(listLocations.request, { org_id: 1, action: 'list_locations', x: locations }).ok).toBe(false);
  });

  it('lists at most MAX_REPORTED_ERRORS field errors and says how many more there were', () => {
    const r = parseWith(listInvoicesRequest, { org_id: 1, partner_ids: new Array(400).fill('x') });
    expect(!r.ok && r.errors).toHaveLength(MAX_REPORTED_ERRORS);
    expect(!r.ok && r.message).toMatch(/; and \d+ more$/);
  });
});
