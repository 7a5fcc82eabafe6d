import { setClock } from '@bo/kernel';
import * as testing from '@bo/testkit';
import { body, specLine, startWithFakePartners } from './fixtures';

/** Partner roles, what still ties a partner to invoicing, and the organization's time zone. */
describe('invoicing service: partners and the organization', () => {
  let svc: testing.TestService;
  beforeAll(async () => {
    ({ svc } = await startWithFakePartners(
      [
        { org: 1, id: 1, partnername: 'Buyer', credit_limit: 0, balance: 0, partner_type: 'customer' },
        { org: 1, id: 2, partnername: 'Supplier', credit_limit: 0, balance: 0, partner_type: 'vendor' },
        { org: 1, id: 3, partnername: 'Either', credit_limit: 0, balance: 0, partner_type: 'both' },
        { org: 1, id: 4, partnername: 'Tied Up', credit_limit: 0, balance: 0, partner_type: 'customer' },
        { org: 5, id: 50, partnername: 'Tokyo Buyer', credit_limit: 0, balance: 0, partner_type: 'customer' },
      ],
      { RECURRING_INTERVAL_MS: '3600000' },
    ));
  });
  afterAll(async () => {
    setClock();
    await svc?.stop();
  });

  const create = (partner: number, invoicetype: string, extra: Record<string, unknown> = {}, org = 1) =>
    svc.call(
      'invoicing.invoice.create',
      { invoicetype, partner, invoicedatetime: '2026-01-05T10:00:00', line_items: [specLine], ...extra },
      org,
    );

  it('takes customers and both on customer documents, vendors and both on vendor documents, and refuses the rest writing nothing', async () => {
    for (const [partner, type] of [
      [1, 'invoiceout'],
      [1, 'creditout'],
      [2, 'invoicein'],
      [2, 'creditin'],
      [3, 'invoiceout'],
      [3, 'invoicein'],
    ] as const) {
      expect((await create(partner, type)).ok).toBe(true);
    }
    const before = await svc.db('invoices').count<{ n: string }[]>({ n: '*' });
    for (const [partner, type, role] of [
      [2, 'invoiceout', 'vendor'],
      [2, 'creditout', 'vendor'],
      [1, 'invoicein', 'customer'],
      [1, 'creditin', 'customer'],
    ] as const) {
      const reply = await create(partner, type);
      expect(reply).toMatchObject({ ok: false, status: 400, code: 'validation_failed', errors: [{ field: 'partner' }] });
      expect(!reply.ok && reply.message).toContain(`partner ${partner} is a ${role}`);
    }
    expect(await svc.db('invoices').count<{ n: string }[]>({ n: '*' })).toEqual(before);
  });

  it('answers the open invoices and active contracts of a partner, and nothing settled', async () => {
    const open = async () => body(await svc.call('invoicing.partner.open_documents', { partner_id: 4 }));
    expect(await open()).toMatchObject({ open_documents: 0, active_contracts: 0, documents: [] });
    const draft = body(await create(4, 'invoiceout')).invoice;
    const posted = body(await create(4, 'invoiceout')).invoice;
    body(await svc.call('invoicing.invoice.validate', { validate_invoice: true, id: posted.id }));
    const paid = body(await create(4, 'invoiceout')).invoice;
    body(await svc.call('invoicing.invoice.validate', { validate_invoice: true, id: paid.id }));
    body(
      await svc.call('invoicing.invoice.register_payment', {
        register_payment: true,
        id: paid.id,
        amount: 258.75,
        payment_date: '2026-01-06',
      }),
    );
    const cancelled = body(await create(4, 'invoiceout')).invoice;
    body(await svc.call('invoicing.invoice.cancel', { cancel_invoice: true, id: cancelled.id }));
    const contract = body(
      await create(4, 'invoiceout', {
        invoicestatus: 'proforma',
        recurring: { enabled: true, frequency: 'monthly', start_date: '2999-01-01' },
      }),
    ).invoice;
    expect(await open()).toEqual({
      message: expect.any(String),
      open_documents: 3,
      active_contracts: 1,
      documents: [
        { kind: 'invoice', id: draft.id, number: draft.invoicenumber, type: 'invoiceout', status: 'draft' },
        { kind: 'invoice', id: posted.id, number: posted.invoicenumber, type: 'invoiceout', status: 'open' },
        { kind: 'invoice', id: contract.id, number: contract.invoicenumber, type: 'invoiceout', status: 'proforma' },
        { kind: 'recurring_contract', id: contract.id, number: contract.invoicenumber, type: 'invoiceout', status: 'active' },
      ],
    });
    body(await svc.call('invoicing.recurring.pause', { pause_recurring: true, id: contract.id }));
    expect((await open()).active_contracts).toBe(0);
  });

  it("reads overdue and dates new invoices in the organization's time zone once its profile event arrived", async () => {
    // Tokyo is UTC+9: at 2026-03-10T16:00Z it is already 2026-03-11 01:00 there.
    setClock(new Date('2026-03-10T16:00:00Z'));
    const inv = body(await create(50, 'invoiceout', { invoicedue: '2026-03-10' }, 5)).invoice;
    body(await svc.call('invoicing.invoice.validate', { validate_invoice: true, id: inv.id }, 5));
    const status = async () => body(await svc.call('invoicing.invoice.balances', { id: inv.id }, 5)).invoices[0].invoicestatus;
    expect(await status()).toBe('open');
    const profile = {
      org_id: 5,
      legal_name: null,
      trading_name: null,
      address_line1: null,
      address_line2: null,
      city: null,
      postal_code: null,
      country: 'JP',
      vat_id: null,
      company_id: null,
      email: null,
      phone: null,
      iban: null,
      bic: null,
      default_currency: 'JPY',
      logo_sha256: null,
      logo_bytes: null,
      updated_at: '2026-03-01T00:00:00',
    };
    const newest = await svc.publish('partners.organization.updated', 5, { ...profile, version: 2, time_zone: 'Asia/Tokyo' });
    // An older version arriving late changes nothing.
    const late = await svc.publish('partners.organization.updated', 5, { ...profile, version: 1, time_zone: 'America/Los_Angeles' });
    const applied = async () =>
      (await svc.db('inbox').where({ consumer: 'invoicing.organization' }).whereIn('event_id', [newest.id, late.id])).length === 2;
    await testing.waitUntil(applied);
    expect(await status()).toBe('overdue');
    const fresh = body(
      await svc.call('invoicing.invoice.create', { invoicetype: 'invoiceout', partner: 50, line_items: [specLine] }, 5),
    ).invoice;
    expect(fresh.invoicedatetime).toBe('2026-03-11T01:00:00');
  });
});
