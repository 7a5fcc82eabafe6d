import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { organization } from '@bo/contracts';
import * as testing from '@bo/testkit';
import { einvoiceFailures, preparePeppolRules, prepareRules } from '../../../tests/support/einvoice';
import { sendInvoiceByPeppol } from '../src/peppol/send-invoice';
import { FileDropTransport, PeppolTransmissionConflict, type FileDropEnvelope } from '../src/peppol/transport';
import { body, startWithFakePartners, type FakePartner } from './fixtures';

const profile = (over: Partial<organization.ProfileRecord> = {}) =>
  testing.profileRecord(1, {
    legal_name: 'Acme Ltd',
    address_line1: '1 Main Street',
    city: 'Dublin',
    country: 'IE',
    vat_id: 'IE6388047V',
    company_id: '123456',
    email: 'billing@acme.test',
    iban: 'IE29AIBK93115212345678',
    default_currency: 'EUR',
    peppol_id: '9935:IE6388047V',
    ...over,
  });
const customer = { country: 'BE', email: 'billing@client.test', tax_number: 'BE0123456749', address_line1: 'Rue 1', city: 'Bruxelles' };

/**
 * `getinvoice` with `format: "peppol"` over real PostgreSQL with a stand-in partners service: the
 * Peppol document passes the UBL XSD, EN 16931 and the Peppol rules, is kept at its first render and
 * served byte-identical; missing ids are 400s naming the field; the file-drop transport hands the
 * kept document over once per invoice version.
 */
describe('invoicing: Peppol documents', () => {
  const partnersTable: FakePartner[] = [
    {
      org: 1,
      id: 10,
      partnername: 'Client SA',
      credit_limit: 0,
      balance: 0,
      partner_type: 'customer',
      record: { ...customer, peppol_id: '0208:0123456749' },
    },
    { org: 1, id: 11, partnername: 'No Peppol SA', credit_limit: 0, balance: 0, partner_type: 'customer', record: { ...customer } },
  ];
  let svc: testing.TestService;
  let state: { profiles: Map<number, organization.ProfileRecord> };
  let dir: string;

  beforeAll(async () => {
    prepareRules();
    preparePeppolRules();
    ({ svc, state } = await startWithFakePartners(partnersTable));
    state.profiles.set(1, profile());
    dir = mkdtempSync(join(tmpdir(), 'peppol-drop-'));
  }, 600_000);
  afterAll(async () => {
    await svc?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const line = { product_id: 7, product_name: 'Consulting', quantity: 2, price: 150, tax_rate: 21, tax_included: false };
  const issue = async (partner: number, fields: Record<string, unknown> = {}) => {
    const created = body(
      await svc.call('invoicing.invoice.create', {
        userid: '5',
        invoicetype: 'invoiceout',
        partner,
        invoicedatetime: '2026-11-02T09:30:00',
        line_items: [line],
        ...fields,
      }),
    ).invoice as { id: number };
    await svc.call('invoicing.invoice.validate', { validate_invoice: true, id: created.id });
    return created.id;
  };
  const render = (id: number) => svc.call('invoicing.invoice.render', { id, format: 'peppol' });

  it('an issued invoice as Peppol passes every rule, is kept and served byte-identical, and is handed over once per version', async () => {
    const id = await issue(10, { invoicereference: 'PO-4711' });
    const first = body(await render(id));
    expect(first).toMatchObject({ format: 'peppol', content_type: 'application/xml', filename: expect.stringMatching(/\.peppol\.xml$/) });
    const xml = Buffer.from(first.content_base64 as string, 'base64').toString('utf8');
    expect(xml).toMatch(/<cbc:EndpointID schemeID="9935">IE6388047V<\/cbc:EndpointID>/);
    expect(xml).toMatch(/<cbc:EndpointID schemeID="0208">0123456749<\/cbc:EndpointID>/);
    expect(xml).toContain('<cbc:BuyerReference>PO-4711</cbc:BuyerReference>');
    expect(await einvoiceFailures('ubl', xml, { peppol: true })).toBe('');

    // Kept at the first render: a later change of the ids changes nothing of it.
    state.profiles.set(1, profile({ peppol_id: '0088:5790000436057' }));
    try {
      expect(body(await render(id)).content_base64).toBe(first.content_base64);
    } finally {
      state.profiles.set(1, profile());
    }
    expect(await svc.db('issued_files').where({ invoice_id: id, format: 'peppol' }).count('* as n').first()).toEqual({ n: 1 });

    const transport = new FileDropTransport(dir, () => new Date('2026-11-02T10:00:00Z'));
    const sent = await sendInvoiceByPeppol(svc.db, 1, id, transport);
    const again = await sendInvoiceByPeppol(svc.db, 1, id, transport);
    expect(again).toEqual(sent);
    expect(sent).toMatchObject({ status: 'queued', transmission_id: expect.stringMatching(/^file-drop:1-\d+-v\d+$/) });
    const files = readdirSync(dir).sort();
    expect(files.filter((f) => !f.endsWith('.tmp'))).toHaveLength(2);
    const envelopeFile = files.find((f) => f.endsWith('.json'))!;
    const envelope = JSON.parse(readFileSync(join(dir, envelopeFile), 'utf8')) as FileDropEnvelope;
    expect(envelope).toMatchObject({ sender: '9935:IE6388047V', receiver: '0208:0123456749', document_type: 'invoice', invoice_id: id });
    expect(readFileSync(join(dir, envelope.document)).toString('utf8')).toBe(xml);

    // Other bytes under the same invoice version are never written over the first.
    await expect(transport.send({ ...envelope, content: Buffer.from('<Invoice/>') })).rejects.toBeInstanceOf(PeppolTransmissionConflict);
    expect(readFileSync(join(dir, envelope.document)).toString('utf8')).toBe(xml);
  }, 120_000);

  it('a credit note as Peppol passes every rule', async () => {
    const id = await issue(10, { invoicetype: 'creditout', invoicereference: 'RMA-9' });
    const xml = Buffer.from(body(await render(id)).content_base64 as string, 'base64').toString('utf8');
    expect(xml).toMatch(/<CreditNote\b/);
    expect(await einvoiceFailures('ubl', xml, { peppol: true })).toBe('');
  }, 120_000);

  it('missing ids and buyer reference are a 400 naming each field, and nothing is kept', async () => {
    const noReference = await issue(10);
    expect(await render(noReference)).toMatchObject({ ok: false, status: 400, errors: [{ field: 'invoicereference' }] });
    const noPartnerId = await issue(11, { invoicereference: 'PO-1' });
    expect(await render(noPartnerId)).toMatchObject({ ok: false, status: 400, errors: [{ field: 'partner.peppol_id' }] });
    state.profiles.set(1, profile({ peppol_id: null }));
    try {
      const noOrgId = await issue(10, { invoicereference: 'PO-2' });
      expect(await render(noOrgId)).toMatchObject({ ok: false, status: 400, errors: [{ field: 'organization.peppol_id' }] });
      expect(await svc.db('issued_files').whereIn('invoice_id', [noReference, noPartnerId, noOrgId]).where({ format: 'peppol' })).toEqual(
        [],
      );
      // The EN 16931 UBL needs no Peppol id.
      expect(body(await svc.call('invoicing.invoice.render', { id: noOrgId, format: 'ubl' })).format).toBe('ubl');
    } finally {
      state.profiles.set(1, profile());
    }
    await expect(sendInvoiceByPeppol(svc.db, 1, noReference, new FileDropTransport(dir))).rejects.toMatchObject({ status: 400 });
  }, 120_000);
});
