import type * as testing from '@bo/testkit';
import { body, specLine, startWithFakePartners, type FakePartner } from './fixtures';

const partnersTable: FakePartner[] = [
  { org: 1, id: 50, partnername: 'Fenced', credit_limit: 0, balance: 0 },
  { org: 1, id: 51, partnername: 'Busy', credit_limit: 0, balance: 0 },
  { org: 1, id: 52, partnername: 'Deleted Meanwhile', credit_limit: 0, balance: 0 },
  { org: 1, id: 53, partnername: 'Paused Contract', credit_limit: 0, balance: 0 },
];

/**
 * The fence a partner delete sets (runtime read-model/partner-delete-fence.ts): asked for open
 * documents with fence_ms and having none, invoicing refuses new invoices for the partner while the
 * fence stands; once it has passed, the next create asks partners and lifts it or records the deletion.
 */
describe('invoicing service: a partner being deleted', () => {
  let svc: testing.TestService;
  let calls: string[];
  beforeAll(async () => {
    ({ svc, calls } = await startWithFakePartners(partnersTable));
  });
  afterAll(async () => {
    await svc?.stop();
  });

  const create = (partner: number) =>
    svc.call('invoicing.invoice.create', { userid: '5', invoicetype: 'invoiceout', partner, line_items: [specLine] });
  const ask = (partner: number, fence_ms?: number) => svc.call('invoicing.partner.open_documents', { partner_id: partner, fence_ms });
  const invoicesOf = async (partner: number) => svc.db('invoices').where({ org_id: 1, partner_id: partner }).pluck('invoicenumber');
  const fenceOf = (partner: number) => svc.db('partner_delete_fences').where({ org_id: 1, partner_id: partner }).first();
  const pass = (partner: number) =>
    svc
      .db('partner_delete_fences')
      .where({ org_id: 1, partner_id: partner })
      .update({ fenced_until: svc.db.raw("now() - interval '1 second'") });

  it('fences a partner with nothing open, refuses its new invoices meanwhile (writing nothing), and lifts a passed fence of a live partner', async () => {
    expect(body(await ask(50)).open_documents).toBe(0);
    expect(await fenceOf(50)).toBeUndefined();
    expect(body(await ask(50, 60_000))).toMatchObject({ open_documents: 0, active_contracts: 0 });
    expect(await fenceOf(50)).toMatchObject({ partner_id: 50 });

    expect(await create(50)).toMatchObject({
      ok: false,
      status: 503,
      code: 'service_unavailable',
      message: expect.stringContaining('Partner 50 is being deleted; nothing was written'),
    });
    expect(await invoicesOf(50)).toEqual([]);

    // The delete never committed (refused, or failed): once the fence has passed, partners says the partner lives.
    await pass(50);
    const asked = calls.length;
    expect(body(await create(50)).invoice).toMatchObject({ partner: '50', invoicestatus: 'draft' });
    expect(calls.slice(asked)).toContain('partners.partner.get');
    expect(await fenceOf(50)).toBeUndefined();
    expect(await invoicesOf(50)).toHaveLength(1);
  });

  it('sets no fence where the partner still has open documents: the delete is refused anyway', async () => {
    const first = body(await create(51)).invoice;
    expect(body(await ask(51, 60_000))).toMatchObject({ open_documents: 1, documents: [{ number: first.invoicenumber, status: 'draft' }] });
    expect(await fenceOf(51)).toBeUndefined();
    expect(body(await create(51)).invoice).toMatchObject({ partner: '51' });
  });

  it('keeps a paused contract of a fenced partner paused: resuming it is refused, changing nothing', async () => {
    const contract = body(
      await svc.call('invoicing.invoice.create', {
        userid: '5',
        invoicetype: 'invoiceout',
        partner: 53,
        line_items: [specLine],
        recurring: { enabled: true, frequency: 'monthly' },
      }),
    ).invoice;
    body(await svc.call('invoicing.recurring.pause', { pause_recurring: true, id: contract.id }));
    // Paused, it does not count as billing the partner: the delete may go ahead, and fences it.
    expect(body(await ask(53, 60_000))).toMatchObject({ open_documents: 1, active_contracts: 0 });
    // Issued and paid in full (as validating and paying it would leave it): nothing of it is open.
    await svc
      .db('invoices')
      .where({ id: contract.id })
      .update({ invoicestatus: 'open', amount_paid: svc.db.ref('invoicetotal') });
    expect(body(await ask(53, 60_000))).toMatchObject({ open_documents: 0, active_contracts: 0 });
    const before = await svc.db('invoices').where({ id: contract.id }).first();
    expect(await svc.call('invoicing.recurring.resume', { resume_recurring: true, id: contract.id })).toMatchObject({
      ok: false,
      status: 503,
      message: expect.stringContaining('Partner 53 is being deleted'),
    });
    expect(await svc.db('invoices').where({ id: contract.id }).first()).toEqual(before);
  });

  it('records the deletion when a passed fence belongs to a partner partners no longer has', async () => {
    body(await create(52));
    body(await ask(52, 60_000)); // the draft is open: no fence...
    await svc.db('invoices').where({ org_id: 1, partner_id: 52 }).update({ invoicestatus: 'cancelled' });
    expect(body(await ask(52, 60_000)).open_documents).toBe(0); // ...and with it cancelled, a fence
    partnersTable.splice(
      partnersTable.findIndex((p) => p.id === 52),
      1,
    );
    await pass(52);
    const before = await invoicesOf(52);
    expect(await create(52)).toMatchObject({ ok: false, status: 400, code: 'not_found' });
    expect((await svc.db('partner_directory').where({ org_id: 1, id: 52 }).first()).deleted_at).not.toBeNull();
    expect(await invoicesOf(52)).toEqual(before);
  });
});
