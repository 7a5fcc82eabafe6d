import { createClient, type Client } from '@bo/client';
import { setClock } from '@bo/kernel';
import { eventually, refusal, startTestSystem, type TestSystem } from '../support/system';

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
  const clients = new Map<number, Client>();
  const products = new Map<number, number>();

  const api = (org: number) => clients.get(org)!;
  /** What every call of an organization carries. */
  const as = (org: number) => ({ org_id: String(org), userid: 'u1' });
  const customer = async (org: number) =>
    (
      await api(org).partners.partner.create({
        ...as(org),
        partner_type: 'customer',
        partnername: `Customer ${Math.random().toString(36).slice(2, 8)}`,
      })
    ).partner.id;
  const line = (org: number) => ({ product_id: products.get(org)!, quantity: 1, price: 100, tax_rate: 0, tax_included: false });
  const postedInvoice = async (org: number, invoicedue: string) => {
    const partner = await customer(org);
    const inv = (
      await api(org).invoicing.invoice.create({
        ...as(org),
        invoicetype: 'invoiceout',
        partner,
        invoicedatetime: '2026-03-01T10:00:00',
        invoicedue,
        line_items: [line(org)],
      })
    ).invoice;
    await api(org).invoicing.invoice.validate({ ...as(org), id: inv.id });
    return inv.id;
  };
  const invoiceStatus = async (org: number, id: number) =>
    (await api(org).invoicing.invoice.balances({ ...as(org), id })).invoices[0]?.invoicestatus;
  const quotation = async (org: number, valid_until: string) =>
    (
      await api(org).sales.quotation.create({
        ...as(org),
        partner: await customer(org),
        quotation_type: 'quotation',
        quotation_date: '2026-03-01T10:00:00',
        valid_until,
        line_items: [line(org)],
      })
    ).quotation;
  const quotationStatus = async (org: number, id: number) =>
    (await api(org).sales.quotation.list({ ...as(org), page_size: 100 })).quotations.find((q) => q.id === id)?.quotation_status;
  /** A monthly contract for a partner of its own, starting 2026-02-11: a child falls due on 2026-03-11. */
  const contract = async (org: number) => {
    const partner = await customer(org);
    const parent = (
      await api(org).invoicing.invoice.create({
        ...as(org),
        invoicetype: 'invoiceout',
        partner,
        invoicedatetime: '2026-02-11T09:00:00',
        line_items: [line(org)],
        recurring: { enabled: true, frequency: 'monthly', start_date: '2026-02-11' },
      })
    ).invoice;
    return { partner, parent: parent.id };
  };
  /** The dates of the children made for a contract (its partner has no other invoice). */
  const childDates = async (org: number, c: { partner: number; parent: number }) =>
    (await api(org).invoicing.invoice.list({ ...as(org), partner_ids: [c.partner], page_size: 100 })).invoices
      .filter((i) => i.id !== c.parent)
      .map((i) => i.invoicedatetime.slice(0, 10))
      .sort();
  const overdueIds = async (org: number) =>
    (await api(org).invoicing.invoice.list({ ...as(org), status_filter: 'overdue', page_size: 100 })).invoices.map((i) => i.id);

  beforeAll(async () => {
    setClock(T1);
    // The scheduler runs a pass every 200 ms, each at the business clock's instant.
    sys = await startTestSystem({ env: { RECURRING_INTERVAL_MS: '200' } });
    clients.set(AUCKLAND, sys.client);
    clients.set(HONOLULU, sys.clientOf(2));
    // A third organization, beyond the two the test system keys itself.
    clients.set(UTC_ORG, createClient({ baseUrl: sys.url, apiKey: await sys.system.createApiKey(UTC_ORG) }));
    for (const org of [AUCKLAND, HONOLULU, UTC_ORG]) {
      products.set(
        org,
        (await api(org).catalog.product.create({ ...as(org), name: 'Support plan', type: 'service', price: 100 })).product.id,
      );
    }
    await api(AUCKLAND).partners.organization.set({ ...as(AUCKLAND), legal_name: 'Kiwi Ltd', time_zone: 'Pacific/Auckland' });
    await api(HONOLULU).partners.organization.set({ ...as(HONOLULU), legal_name: 'Aloha LLC', time_zone: 'Pacific/Honolulu' });
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
      expect(await overdueIds(AUCKLAND)).toContain(auckland);
      expect((await api(UTC_ORG).invoicing.invoice.list({ ...as(UTC_ORG), status_filter: 'overdue' })).invoices).toEqual([]);
    });

    it('a quotation valid until 2026-03-10 has expired for Auckland, while it is still a draft on UTC', async () => {
      const auckland = await quotation(AUCKLAND, '2026-03-10');
      const utc = await quotation(UTC_ORG, '2026-03-10');
      await eventually(async () => expect(await quotationStatus(AUCKLAND, auckland.id)).toBe('expired'));
      expect(await quotationStatus(UTC_ORG, utc.id)).toBe('draft');
      const expired = await api(AUCKLAND).sales.quotation.list({ ...as(AUCKLAND), status: 'expired', page_size: 100 });
      expect(expired.quotations.map((q) => q.id)).toContain(auckland.id);
    });

    it("dates new invoices, conversions and payments at Auckland's wall clock", async () => {
      await eventually(async () => expect(await invoiceStatus(AUCKLAND, await postedInvoice(AUCKLAND, '2026-03-10'))).toBe('overdue'));
      const partner = await customer(AUCKLAND);
      const draft = (
        await api(AUCKLAND).invoicing.invoice.create({ ...as(AUCKLAND), invoicetype: 'invoiceout', partner, line_items: [line(AUCKLAND)] })
      ).invoice;
      expect(draft.invoicedatetime).toBe('2026-03-11T00:30:00');
      const utcDraft = (
        await api(UTC_ORG).invoicing.invoice.create({
          ...as(UTC_ORG),
          invoicetype: 'invoiceout',
          partner: await customer(UTC_ORG),
          line_items: [line(UTC_ORG)],
        })
      ).invoice;
      expect(utcDraft.invoicedatetime).toBe('2026-03-10T11:30:00');

      await api(AUCKLAND).invoicing.invoice.validate({ ...as(AUCKLAND), id: draft.id });
      const paid = await api(AUCKLAND).invoicing.invoice.registerPayment({ ...as(AUCKLAND), id: draft.id, amount: 40 });
      expect(paid.payment.payment_date).toBe('2026-03-11');

      const q = await quotation(AUCKLAND, '2026-12-31');
      const converted = await api(AUCKLAND).sales.quotation.convert({ ...as(AUCKLAND), quotation_id: q.id, invoicetype: 'invoiceout' });
      const invoice = (await api(AUCKLAND).invoicing.invoice.list({ ...as(AUCKLAND), search_key: converted.invoice.invoicenumber }))
        .invoices[0];
      expect(invoice?.invoicedatetime).toBe('2026-03-11T00:30:00');
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
      expect(await overdueIds(HONOLULU)).not.toContain(honolulu);
    });

    it('a quotation valid until 2026-03-10 is still a draft for Honolulu, while on UTC it has expired', async () => {
      const honolulu = await quotation(HONOLULU, '2026-03-10');
      const utc = await quotation(UTC_ORG, '2026-03-10');
      await eventually(async () => expect(await quotationStatus(HONOLULU, honolulu.id)).toBe('draft'));
      expect(await quotationStatus(UTC_ORG, utc.id)).toBe('expired');
      // Lines still go on: it has not expired where the organization is.
      const addLine = (org: number, quotationId: number) =>
        api(org).sales.quotation.addLine({ ...as(org), quotation_id: quotationId, ...line(org) });
      expect((await addLine(HONOLULU, honolulu.id)).totals.quotation_total).toBe(200);
      expect(await refusal(addLine(UTC_ORG, utc.id))).toMatchObject({ status: 400 });
    });

    it("dates new invoices and payments at Honolulu's wall clock, the day before UTC's", async () => {
      const partner = await customer(HONOLULU);
      const draft = (
        await api(HONOLULU).invoicing.invoice.create({ ...as(HONOLULU), invoicetype: 'invoiceout', partner, line_items: [line(HONOLULU)] })
      ).invoice;
      expect(draft.invoicedatetime).toBe('2026-03-10T23:30:00');
      await api(HONOLULU).invoicing.invoice.validate({ ...as(HONOLULU), id: draft.id });
      const paid = await api(HONOLULU).invoicing.invoice.registerPayment({ ...as(HONOLULU), id: draft.id, amount: 100 });
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
