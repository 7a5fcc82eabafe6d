import { setClock } from '@bo/kernel';
import * as testing from '@bo/testkit';
import { salesService } from '../src/service';
import { contractCall, fakeInvoicing, fakePartners, ok, partnerRecord, waitFor } from './support';

const specLine = { product_id: 7, product_name: 'Widget', quantity: 1, price: 50, tax_rate: 0, tax_included: false };

/** Partner roles on quotations, the quotations that still tie a partner, and the organization's time zone. */
describe('sales: partners and the organization', () => {
  let svc: testing.TestService;
  let catalog: testing.CatalogStub;
  let call: ReturnType<typeof contractCall>;
  beforeAll(async () => {
    svc = await testing.startTestService(salesService);
    catalog = await testing.startCatalogStub(svc);
    call = contractCall(svc);
    const partners = await fakePartners(svc);
    await fakeInvoicing(svc);
    partners.add(partnerRecord(1, 1, { partner_type: 'customer' }));
    partners.add(partnerRecord(1, 2, { partner_type: 'vendor' }));
    partners.add(partnerRecord(1, 3, { partner_type: 'both' }));
    partners.add(partnerRecord(1, 4, { partner_type: 'customer' }));
    partners.add(partnerRecord(6, 60, { partner_type: 'customer' }));
  });
  afterAll(async () => {
    setClock();
    await catalog?.stop();
    await svc?.stop();
  });

  const create = (partner: number, fields: Record<string, unknown> = {}, org = 1) =>
    call(
      'sales.quotation.create',
      {
        action: 'create_quotation',
        partner,
        quotation_type: 'quotation',
        quotation_date: '2026-03-01T09:30:00',
        valid_until: '2999-12-31',
        line_items: [specLine],
        ...fields,
      },
      org,
    );

  it('takes customers and both, and refuses a vendor naming its type, writing nothing', async () => {
    for (const type of ['quotation', 'proforma', 'estimate']) {
      expect((await create(1, { quotation_type: type })).ok).toBe(true);
      expect((await create(3, { quotation_type: type })).ok).toBe(true);
      const refused = await create(2, { quotation_type: type });
      expect(refused).toMatchObject({ ok: false, status: 400, code: 'validation_failed', errors: [{ field: 'partner' }] });
      expect(!refused.ok && refused.message).toContain('partner 2 is a vendor');
    }
    expect(await svc.db('quotations').where({ partner_id: 2 })).toEqual([]);
  });

  it("answers a partner's open quotations: not cancelled, converted or expired", async () => {
    const open = async () => ok(await svc.call('sales.partner.open_documents', { partner_id: 4 }));
    expect(await open()).toMatchObject({ open_documents: 0, documents: [] });
    const draft = ok(await create(4)).quotation;
    const cancelled = ok(await create(4)).quotation;
    ok(await call('sales.quotation.cancel', { action: 'cancel_quotation', quotation_id: cancelled.id }));
    ok(await create(4, { valid_until: '2026-03-02' }));
    const converted = ok(await create(4)).quotation;
    ok(await call('sales.quotation.convert', { action: 'convert_to_invoice', quotation_id: converted.id, invoicetype: 'invoiceout' }));
    expect(await open()).toEqual({
      message: expect.any(String),
      open_documents: 1,
      active_contracts: 0,
      documents: [{ kind: 'quotation', id: draft.id, number: draft.quotation_number, type: 'quotation', status: 'draft' }],
    });
  });

  it("expires quotations on the organization's date once its profile event arrived", async () => {
    // Los Angeles (UTC-7 in March): at 2026-03-11T05:00Z it is still 2026-03-10 22:00 there.
    setClock(new Date('2026-03-11T05:00:00Z'));
    const q = ok(await create(60, { valid_until: '2026-03-10' }, 6)).quotation;
    expect(q.quotation_status).toBe('expired');
    const profile = { org_id: 6, version: 1, time_zone: 'America/Los_Angeles' };
    const event = await svc.publish('partners.organization.updated', 6, {
      ...profile,
      legal_name: null,
      trading_name: null,
      address_line1: null,
      address_line2: null,
      city: null,
      postal_code: null,
      country: 'US',
      vat_id: null,
      company_id: null,
      email: null,
      phone: null,
      iban: null,
      bic: null,
      default_currency: 'USD',
      logo_sha256: null,
      logo_bytes: null,
      updated_at: '2026-03-01T00:00:00',
    });
    await waitFor(async () => !!(await svc.db('inbox').where({ consumer: 'sales.organization', event_id: event.id }).first()));
    const listed = ok(await call('sales.quotation.list', { page_size: 10 }, 6)).quotations;
    expect(listed.map((x: { id: number; quotation_status: string }) => [x.id, x.quotation_status])).toEqual([[q.id, 'draft']]);
  });
});
