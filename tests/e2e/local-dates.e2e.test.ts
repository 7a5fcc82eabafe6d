import { setClock } from '@bo/runtime';
import { eventually, startTestSystem, type ApiResponse, type TestSystem } from '../support/system';

/**
 * Every "today" is the organization's own, in its time zone: overdue, quotation expiry, the
 * recurring scheduler's due day and default document and payment dates. The business clock is
 * moved (runtime `setClock`) to instants around midnight in Auckland (east of UTC, UTC+13 in March)
 * and Honolulu (west, UTC-10); an organization with no profile stays on UTC.
 */
// Auckland: already 2026-03-11 00:30. Honolulu: 2026-03-10 01:30. UTC: 2026-03-10 11:30.
const T1 = new Date('2026-03-10T11:30:00Z');
// Honolulu: still 2026-03-10 23:30. UTC: already 2026-03-11 09:30. Auckland: 2026-03-11 22:30.
const T2 = new Date('2026-03-11T09:30:00Z');

const AUCKLAND = 1;
const HONOLULU = 2;
const UTC_ORG = 3;

describe('dates in the organization time zone', () => {
  let sys: TestSystem;
  const keys = new Map<number, string>();
  const products = new Map<number, number>();

  const post = (org: number, path: string, body: Record<string, unknown>): Promise<ApiResponse> =>
    sys.post(path, { org_id: String(org), userid: 'u1', ...body }, { key: keys.get(org) });
  const ok = async (org: number, path: string, body: Record<string, unknown>) => {
    const r = await post(org, path, body);
    if (r.statusCode !== 200) throw new Error(`${path} answered ${r.statusCode}: ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const customer = async (org: number) =>
    (await ok(org, '/crm/editpatner', { action: 'create', partner_type: 'customer', partnername: `Customer ${Math.random().toString(36).slice(2, 8)}` })).partner.id as number;
  const line = (org: number) => ({ product_id: products.get(org), quantity: 1, price: 100, tax_rate: 0, tax_included: false });
  const postedInvoice = async (org: number, invoicedue: string) => {
    const partner = await customer(org);
    const inv = (await ok(org, '/invoicing/invoice/new', { invoicetype: 'invoiceout', partner, invoicedatetime: '2026-03-01T10:00:00', invoicedue, line_items: [line(org)] })).invoice;
    await ok(org, '/invoicing/invoice/new', { validate_invoice: true, id: inv.id });
    return inv.id as number;
  };
  const invoiceStatus = async (org: number, id: number) => (await ok(org, '/invoicing/getinvoice', { id })).invoices[0].invoicestatus as string;
  const quotation = async (org: number, valid_until: string) =>
    (await ok(org, '/sales/addline', {
      action: 'create_quotation', partner: await customer(org), quotation_type: 'quotation', quotation_date: '2026-03-01T10:00:00', valid_until, line_items: [line(org)],
    })).quotation as { id: number; quotation_status: string };
  const quotationStatus = async (org: number, id: number) =>
    (await ok(org, '/sales/orderdetail', { page_size: 100 })).quotations.find((q: { id: number }) => q.id === id).quotation_status as string;
  /** A monthly contract for a partner of its own, starting 2026-02-11: a child falls due on 2026-03-11. */
  const contract = async (org: number) => {
    const partner = await customer(org);
    const parent = (await ok(org, '/invoicing/invoice/new', {
      invoicetype: 'invoiceout', partner, invoicedatetime: '2026-02-11T09:00:00', line_items: [line(org)], recurring: { enabled: true, frequency: 'monthly', start_date: '2026-02-11' },
    })).invoice;
    return { partner, parent: parent.id as number };
  };
  /** The dates of the children made for a contract (its partner has no other invoice). */
  const childDates = async (org: number, c: { partner: number; parent: number }) =>
    ((await ok(org, '/invoicing/listinvoices', { partner_ids: [c.partner], page_size: 100 })).invoices as Array<{ id: number; invoicedatetime: string }>)
      .filter((i) => i.id !== c.parent)
      .map((i) => i.invoicedatetime.slice(0, 10))
      .sort();

  beforeAll(async () => {
    setClock(T1);
    // The scheduler runs a pass every 200 ms, each at the business clock's instant.
    sys = await startTestSystem({ env: { RECURRING_INTERVAL_MS: '200' } });
    keys.set(AUCKLAND, sys.keys[1]);
    keys.set(HONOLULU, sys.keys[2]);
    keys.set(UTC_ORG, await sys.system.createApiKey(UTC_ORG));
    for (const org of [AUCKLAND, HONOLULU, UTC_ORG]) {
      products.set(org, (await ok(org, '/inventory/editproduct', { name: 'Support plan', type: 'service', price: 100 })).product.id);
    }
    await ok(AUCKLAND, '/organization/setprofile', { legal_name: 'Kiwi Ltd', time_zone: 'Pacific/Auckland' });
    await ok(HONOLULU, '/organization/setprofile', { legal_name: 'Aloha LLC', time_zone: 'Pacific/Honolulu' });
  });
  afterAll(async () => {
    await sys?.stop();
    setClock();
  });

  describe('east of UTC, just after local midnight (Auckland 2026-03-11 00:30, UTC still 2026-03-10)', () => {
    beforeAll(() => setClock(T1));

    it('an invoice due 2026-03-10 is overdue for Auckland, while it is still open on UTC', async () => {
      const auckland = await postedInvoice(AUCKLAND, '2026-03-10');
      const utc = await postedInvoice(UTC_ORG, '2026-03-10');
      await eventually(async () => expect(await invoiceStatus(AUCKLAND, auckland)).toBe('overdue'));
      expect(await invoiceStatus(UTC_ORG, utc)).toBe('open');
      const listed = await ok(AUCKLAND, '/invoicing/listinvoices', { status_filter: 'overdue', page_size: 100 });
      expect(listed.invoices.map((i: { id: number }) => i.id)).toContain(auckland);
      expect((await ok(UTC_ORG, '/invoicing/listinvoices', { status_filter: 'overdue' })).invoices).toEqual([]);
    });

    it('a quotation valid until 2026-03-10 has expired for Auckland, while it is still a draft on UTC', async () => {
      const auckland = await quotation(AUCKLAND, '2026-03-10');
      const utc = await quotation(UTC_ORG, '2026-03-10');
      await eventually(async () => expect(await quotationStatus(AUCKLAND, auckland.id)).toBe('expired'));
      expect(await quotationStatus(UTC_ORG, utc.id)).toBe('draft');
      const expired = await ok(AUCKLAND, '/sales/orderdetail', { status: 'expired', page_size: 100 });
      expect(expired.quotations.map((q: { id: number }) => q.id)).toContain(auckland.id);
    });

    it("dates new invoices, conversions and payments at Auckland's wall clock", async () => {
      await eventually(async () => expect(await invoiceStatus(AUCKLAND, await postedInvoice(AUCKLAND, '2026-03-10'))).toBe('overdue'));
      const partner = await customer(AUCKLAND);
      const draft = (await ok(AUCKLAND, '/invoicing/invoice/new', { invoicetype: 'invoiceout', partner, line_items: [line(AUCKLAND)] })).invoice;
      expect(draft.invoicedatetime).toBe('2026-03-11T00:30:00');
      const utcDraft = (await ok(UTC_ORG, '/invoicing/invoice/new', { invoicetype: 'invoiceout', partner: await customer(UTC_ORG), line_items: [line(UTC_ORG)] })).invoice;
      expect(utcDraft.invoicedatetime).toBe('2026-03-10T11:30:00');

      await ok(AUCKLAND, '/invoicing/invoice/new', { validate_invoice: true, id: draft.id });
      const paid = await ok(AUCKLAND, '/invoicing/invoice/new', { register_payment: true, id: draft.id, amount: 40 });
      expect(paid.payment.payment_date).toBe('2026-03-11');

      const q = await quotation(AUCKLAND, '2026-12-31');
      const converted = await ok(AUCKLAND, '/sales/addline', { action: 'convert_to_invoice', quotation_id: q.id, invoicetype: 'invoiceout' });
      const invoice = (await ok(AUCKLAND, '/invoicing/listinvoices', { search_key: converted.invoice.invoicenumber })).invoices[0];
      expect(invoice.invoicedatetime).toBe('2026-03-11T00:30:00');
    });

    it("makes the recurring child due on Auckland's 2026-03-11", async () => {
      const c = await contract(AUCKLAND);
      await eventually(async () => expect(await childDates(AUCKLAND, c)).toContain('2026-03-11'));
      expect((await childDates(AUCKLAND, c)).every((d) => d <= '2026-03-11')).toBe(true);
    });
  });

  describe('west of UTC, just before local midnight (Honolulu 2026-03-10 23:30, UTC already 2026-03-11)', () => {
    beforeAll(() => setClock(T2));

    it('an invoice due 2026-03-10 is still open for Honolulu, while on UTC it is overdue', async () => {
      const honolulu = await postedInvoice(HONOLULU, '2026-03-10');
      const utc = await postedInvoice(UTC_ORG, '2026-03-10');
      // On UTC it reads overdue until invoicing knows Honolulu's zone: open is the positive signal.
      await eventually(async () => expect(await invoiceStatus(HONOLULU, honolulu)).toBe('open'));
      expect(await invoiceStatus(UTC_ORG, utc)).toBe('overdue');
      expect(await invoiceStatus(HONOLULU, await postedInvoice(HONOLULU, '2026-03-09'))).toBe('overdue');
      expect((await ok(HONOLULU, '/invoicing/listinvoices', { status_filter: 'overdue', page_size: 100 })).invoices.map((i: { id: number }) => i.id)).not.toContain(honolulu);
    });

    it('a quotation valid until 2026-03-10 is still a draft for Honolulu, while on UTC it has expired', async () => {
      const honolulu = await quotation(HONOLULU, '2026-03-10');
      const utc = await quotation(UTC_ORG, '2026-03-10');
      await eventually(async () => expect(await quotationStatus(HONOLULU, honolulu.id)).toBe('draft'));
      expect(await quotationStatus(UTC_ORG, utc.id)).toBe('expired');
      // Lines still go on: it has not expired where the organization is.
      expect((await post(HONOLULU, '/sales/addline', { action: 'add_line', quotation_id: honolulu.id, ...line(HONOLULU) })).statusCode).toBe(200);
      expect((await post(UTC_ORG, '/sales/addline', { action: 'add_line', quotation_id: utc.id, ...line(UTC_ORG) })).statusCode).toBe(400);
    });

    it("dates new invoices and payments at Honolulu's wall clock, the day before UTC's", async () => {
      const partner = await customer(HONOLULU);
      const draft = (await ok(HONOLULU, '/invoicing/invoice/new', { invoicetype: 'invoiceout', partner, line_items: [line(HONOLULU)] })).invoice;
      expect(draft.invoicedatetime).toBe('2026-03-10T23:30:00');
      await ok(HONOLULU, '/invoicing/invoice/new', { validate_invoice: true, id: draft.id });
      const paid = await ok(HONOLULU, '/invoicing/invoice/new', { register_payment: true, id: draft.id, amount: 100 });
      expect(paid.payment.payment_date).toBe('2026-03-10');
    });

    it("does not make the child due on UTC's 2026-03-11 for Honolulu, where it is still 2026-03-10", async () => {
      const honolulu = await contract(HONOLULU);
      // Created after it, with the same next run date: the scheduler takes due contracts in (date, id)
      // order, so once this one's 2026-03-11 child exists, Honolulu's would too had it been due.
      const utc = await contract(UTC_ORG);
      await eventually(async () => expect(await childDates(UTC_ORG, utc)).toContain('2026-03-11'));
      expect(await childDates(HONOLULU, honolulu)).not.toContain('2026-03-11');
    });
  });
});
