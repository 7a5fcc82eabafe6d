import { createHash } from 'node:crypto';
import { parseWith, sales } from '@bo/contracts';
import { decideEditQuotation, editNeedsLines, type EditQuotationRequest } from './decide-edit-quotation';
import type { PartiesNow } from './quotation-rules';
import { acmeProfile, draftQuotationRow, EUR_POLICY, quotationState } from './quotation-row.fixtures';

/** An edit of QUO-00005 as the contract's schema hands it to the handler. */
function request(body: Record<string, unknown>): EditQuotationRequest {
  const parsed = parseWith(sales.editQuotation.request, { org_id: 1, action: 'edit_quotation', quotation_id: 5, ...body });
  if (!parsed.ok) throw new Error(`the example request is refused: ${JSON.stringify(parsed)}`);
  return parsed.value;
}

/** The parties as the partners service holds them now: Acme Ltd issues it to a partner it no longer has, known as Client Co. */
const parties = (profile = acmeProfile()): PartiesNow => ({ records: { organization: profile, partner: null }, partnerName: 'Client Co' });

describe('deciding an edit of a quotation', () => {
  it('given a draft, when its header is edited, then those fields and the author are written, and nothing is computed again', () => {
    const req = request({
      quotation_number: '  Q-SPECIAL ',
      valid_until: '2027-01-31',
      comments: 'Signed',
      quotation_reference: 'REF-1',
      userid: 'u9',
    });
    const edit = decideEditQuotation(quotationState(), req, null, 'u9');
    expect(edit.header).toEqual({
      quotation_number: 'Q-SPECIAL',
      valid_until: '2027-01-31',
      comments: 'Signed',
      quotation_reference: 'REF-1',
      updated_by: 'u9',
    });
    expect(edit).toMatchObject({ orgId: 1, quotationId: 5, logo: null, changedLines: [] });
    expect(edit.reply).toEqual({
      message: 'Quotation updated successfully',
      quotation: {
        id: 5,
        quotation_number: 'Q-SPECIAL',
        quotation_status: 'draft',
        valid_until: '2027-01-31',
        comments: 'Signed',
        quotation_reference: 'REF-1',
        subtotal: 225,
        tax_amount: 33.75,
        quotation_total: 258.75,
        currency: 'EUR',
        exchange_rate: null,
        rounding: 'line',
        allowances_charges: [],
        tax_breakdown: [
          { tax_category: 'S', tax_rate: 15, taxable_amount: 225, tax_amount: 33.75, exemption_reason: null, exemption_code: null },
        ],
        allowance_total: 0,
        charge_total: 0,
        vat_total: 33.75,
        rounding_amount: 0,
      },
    });
    expect(sales.editQuotation.reply.parse(edit.reply)).toEqual(edit.reply);
  });

  it('given a quotation with comments, when they are sent empty, then they are cleared; an empty number keeps the number', () => {
    const state = quotationState({ quotation: draftQuotationRow({ comments: 'Old', quotation_reference: 'R' }) });
    const edit = decideEditQuotation(state, request({ quotation_number: ' ', comments: '', quotation_reference: '' }), null, null);
    expect(edit.header).toEqual({ comments: null, quotation_reference: null, updated_by: null });
    expect(edit.reply.quotation).toMatchObject({ quotation_number: 'QUO-00005', comments: null, quotation_reference: null });
  });

  it('given a draft, when it is sent, then its parties are frozen with the accounting currency and it is computed again with the policy now', () => {
    const policy = { ...EUR_POLICY, rounding: 'document' as const };
    const edit = decideEditQuotation(quotationState({ policy }), request({ quotation_status: 'sent' }), parties(), 'u2');
    expect(edit.header).toMatchObject({
      status: 'sent',
      currency: 'EUR',
      accounting_currency: 'EUR',
      rounding: 'document',
      subtotal: '225.00',
      total: '258.75',
      updated_by: 'u2',
      issued_parties: expect.objectContaining({
        currency: 'EUR',
        seller: expect.objectContaining({ name: 'Acme Ltd', vat_id: 'IE1234567T' }),
        buyer: { name: 'Client Co' },
        logo_sha256: null,
      }),
    });
    expect(edit.logo).toBeNull();
    expect(edit.reply.quotation).toMatchObject({ quotation_status: 'sent', rounding: 'document', currency: 'EUR' });
  });

  it('given an organization with a logo, when a draft is sent, then the logo is kept once by its content and the parties name it', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    const sha256 = createHash('sha256').update(png).digest('hex');
    const edit = decideEditQuotation(
      quotationState(),
      request({ quotation_status: 'sent' }),
      parties(acmeProfile({ logo_png: png.toString('base64') })),
      null,
    );
    expect(edit.logo).toEqual({ sha256, png });
    expect(edit.header.issued_parties).toMatchObject({ logo_sha256: sha256 });
    expect(edit.header.issued_parties).not.toHaveProperty('logo_png');
  });

  it('given a draft that holds frozen parties, when it is sent, then it keeps them: the first freeze wins', () => {
    const held = { currency: 'EUR', seller: { name: 'Earlier' }, buyer: { name: 'Earlier' }, payment_account: null, logo_sha256: null };
    const state = quotationState({ quotation: draftQuotationRow({ issued_parties: held }) });
    const edit = decideEditQuotation(state, request({ quotation_status: 'sent' }), parties(), null);
    expect(edit.header).not.toHaveProperty('issued_parties');
    expect(edit.header).not.toHaveProperty('accounting_currency');
    expect(edit.header).toMatchObject({ status: 'sent', subtotal: '225.00' });
    expect(edit.logo).toBeNull();
  });

  it('given a sent quotation, when it goes back to draft, then its frozen parties are dropped and it is computed again', () => {
    const sent = draftQuotationRow({ status: 'sent', issued_parties: {} as never, accounting_currency: 'EUR' });
    const edit = decideEditQuotation(quotationState({ quotation: sent }), request({ quotation_status: 'draft' }), null, null);
    expect(edit.header).toMatchObject({ status: 'draft', issued_parties: null, accounting_currency: null, total: '258.75' });
    expect(edit.reply.quotation.quotation_status).toBe('draft');
  });

  it('given a draft, when an allowance is asked, then the quotation is computed again with it', () => {
    const req = request({ allowances_charges: [{ charge: false, amount: '5', reason: 'Loyalty', tax_rate: 15 }] });
    const edit = decideEditQuotation(quotationState(), req, null, null);
    expect(edit.header).toMatchObject({
      subtotal: '220.00',
      tax_amount: '33.00',
      total: '253.00',
      allowance_total: '5.00',
      allowances_charges: [expect.objectContaining({ charge: false, amount: '5', reason: 'Loyalty' })],
    });
    expect(edit.reply.quotation).toMatchObject({ subtotal: 220, tax_amount: 33, quotation_total: 253, allowance_total: 5 });
    expect(edit.reply.quotation.allowances_charges).toEqual([
      expect.objectContaining({ charge: false, amount: 5, tax_category: 'S', tax_amount: 0.75 }),
    ]);
  });

  it('given a quotation in another currency than the books, when an exchange rate is set, then it is kept; in the books currency it is refused', () => {
    const usd = quotationState({ quotation: draftQuotationRow({ currency: 'USD' }) });
    const edit = decideEditQuotation(usd, request({ exchange_rate: '1.1' }), null, null);
    expect(edit.header).toMatchObject({ exchange_rate: '1.1' });
    expect(edit.reply.quotation.exchange_rate).toBe(1.1);
    expect(() => decideEditQuotation(quotationState(), request({ exchange_rate: '1.2' }), null, null)).toThrow(
      expect.objectContaining({ refusal: 'quotation.exchangeRateRefused', errors: [expect.objectContaining({ field: 'exchange_rate' })] }),
    );
  });

  it('given a draft, when it is moved where the state machine does not go, then it is refused naming its status', () => {
    for (const to of ['accepted', 'converted', 'cancelled', 'expired']) {
      expect(() => decideEditQuotation(quotationState(), request({ quotation_status: to }), null, null)).toThrow(
        expect.objectContaining({ refusal: 'quotation.refusedInStatus', message: expect.stringContaining('in status draft') }),
      );
    }
  });

  it('given a cancelled quotation, when an edit names no field, then it is refused too: it would still write its author', () => {
    const cancelled = quotationState({ quotation: draftQuotationRow({ status: 'cancelled' }) });
    expect(() => decideEditQuotation(cancelled, request({}), null, 'u9')).toThrow(
      expect.objectContaining({
        refusal: 'quotation.refusedInStatus',
        transient: false,
        message: expect.stringContaining('in status cancelled'),
      }),
    );
  });

  it('given a quotation frozen by a conversion under way, when edited, then it is refused until the conversion ends', () => {
    const frozen = quotationState({ quotation: draftQuotationRow({ conversion_attempted_at: new Date('2026-11-29T09:00:00Z') }) });
    expect(() => decideEditQuotation(frozen, request({ comments: 'x' }), null, null)).toThrow(
      expect.objectContaining({ refusal: 'quotation.refusedInStatus', transient: true }),
    );
  });

  it('given an accepted quotation, when its allowances are changed, then it is refused: its amounts no longer move', () => {
    const accepted = quotationState({ quotation: draftQuotationRow({ status: 'accepted' }) });
    expect(() => decideEditQuotation(accepted, request({ allowances_charges: [] }), null, null)).toThrow(
      expect.objectContaining({ refusal: 'quotation.refusedInStatus', message: expect.stringContaining('in status accepted') }),
    );
  });

  it('given a quotation dated 20 November, when valid_until is set before it, then it is refused naming the field', () => {
    expect(() => decideEditQuotation(quotationState(), request({ valid_until: '2026-11-19' }), null, null)).toThrow(
      expect.objectContaining({
        refusal: 'quotation.validUntilBeforeQuotationDate',
        message: 'valid_until 2026-11-19 is before the quotation date 2026-11-20',
      }),
    );
  });

  it('reads the lines only for an edit that may compute the quotation again', () => {
    expect(editNeedsLines(request({ comments: 'x' }))).toBe(false);
    expect(editNeedsLines(request({ quotation_status: 'accepted' }))).toBe(false);
    for (const body of [{ quotation_status: 'sent' }, { quotation_status: 'draft' }, { allowances_charges: [] }, { exchange_rate: null }])
      expect(editNeedsLines(request(body))).toBe(true);
    expect(() => decideEditQuotation(quotationState({ lines: undefined }), request({ allowances_charges: [] }), null, null)).toThrow(
      /lines were not loaded/,
    );
  });
});
