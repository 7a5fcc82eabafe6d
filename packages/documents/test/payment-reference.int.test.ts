import { renderCii, renderPdf, renderUbl } from '../src';
import { einvoiceFailures, prepareRules } from '../../../tests/support/einvoice';
import { pdfText } from '../../../tests/support/pdf';
import { sampleDocument } from './fixtures';

beforeAll(() => prepareRules(), 300_000);

/** A customer invoice with its ISO 11649 payment reference (the published example RF18 5390 0754 7034). */
const withReference = sampleDocument('invoice', { number: 'INV-000042', payment_reference: 'RF18539007547034' });

describe('payment reference (BT-83)', () => {
  it('is the PaymentID of UBL and the PaymentReference of CII, which stay valid', async () => {
    const ubl = await renderUbl(withReference);
    expect(ubl).toMatch(/<cac:PaymentMeans>[\s\S]*<cbc:PaymentID>RF18539007547034<\/cbc:PaymentID>/);
    expect(await einvoiceFailures('ubl', ubl)).toBe('');
    const cii = await renderCii(withReference);
    expect(cii).toContain('<ram:PaymentReference>RF18539007547034</ram:PaymentReference>');
    expect(await einvoiceFailures('cii', cii)).toBe('');
  });

  it('is the document number when the document has none (documents issued before, vendor bills)', async () => {
    const ubl = await renderUbl(sampleDocument('invoice', { number: 'INV-000042' }));
    expect(ubl).toContain('<cbc:PaymentID>INV-000042</cbc:PaymentID>');
  });

  it('is printed on the PDF in groups of four, and quoted in the request to pay', async () => {
    const text = pdfText(await renderPdf(withReference));
    expect(text).toContain('Payment reference: RF18 5390 0754 7034');
    expect(text).toMatch(/Please pay by .*, quoting RF18 5390 0754 7034\./);
    expect(pdfText(await renderPdf(sampleDocument('invoice')))).not.toContain('Payment reference');
  });
});
