import { holdOrganizationSettingsExclusively, readSettings } from '@bo/billing';
import { formatDateTime } from '@bo/kernel';
import { NotAsDecided, storeAlone } from '@bo/runtime';
import * as testing from '@bo/testkit';
import { booksChangeAlone, readBooksAsRead } from '../src/book/book.repository';
import { decideBooksConfiguration } from '../src/book/decide-books';
import { decideDispute } from '../src/dunning/decide-dispute';
import { decideDunningLevels, levelsReply } from '../src/dunning/decide-levels';
import {
  disputeAlone,
  loadLevels,
  loadSettings,
  readDisputeTarget,
  readDunningSetup,
  levelsAlone,
} from '../src/dunning/dunning.repository';
import { decideRejection } from '../src/inbound/decide-rejection';
import { inboundById, readInboundAsRead, rejectionAlone, toInboundRecord } from '../src/inbound/inbound.repository';
import { body, startWithFakePartners } from './fixtures';

// The inbound and dunning writes decided on an unlocked read and stored as one statement: a store
// whose read went stale writes nothing (the service then goes the locked way), and what the service
// answers is what it stored.
const answer = { ok: true as const, status: 200, body: {} };
const LEVELS = [
  { level: 1, days_after_due: 7, fee: '0', interest: false, text: 'Friendly reminder' },
  { level: 2, days_after_due: 21, fee: '5.00', interest: true, text: 'Second reminder' },
];

describe('invoicing service: inbound and dunning writes as one statement', () => {
  let svc: testing.TestService;
  let events: Awaited<ReturnType<testing.TestService['collect']>>;
  const call = (operation: string, payload: Record<string, unknown>, org = 1) => svc.call(operation, { userid: '5', ...payload }, org);
  let imports = 0;
  async function heldImport(): Promise<number> {
    imports += 1;
    const [row] = await svc
      .db('inbound_documents')
      .insert({
        org_id: 1,
        status: 'needs_review',
        syntax: 'ubl',
        original: Buffer.from('<Invoice/>'),
        sha256: String(imports % 10).repeat(64),
        content_type: 'application/xml',
        supplier_key: 'vat:NL809163160B01',
        invoice_number: `F-${imports}`,
        issue_date: '2026-11-02',
        summary: JSON.stringify({
          customization_id: null,
          currency: 'EUR',
          seller: { name: 'Supplier BV', vat_id: 'NL809163160B01', endpoint_id: null },
          totals: { line_extension: '100.00', tax_exclusive: '100.00', tax: '21.00', tax_inclusive: '121.00', payable: '121.00' },
        }),
        validation: JSON.stringify({ fatal: [], warnings: [] }),
        review_reasons: JSON.stringify(['supplier unknown']),
      })
      .returning<Array<{ id: number }>>('id');
    return row!.id;
  }

  beforeAll(async () => {
    ({ svc } = await startWithFakePartners([
      { org: 1, id: 10, partnername: 'Acme', credit_limit: 0, balance: 0, record: { currency: 'EUR' } },
    ]));
    events = await svc.collect(['invoicing.inbound.*']);
  });
  afterAll(() => svc.stop());

  it('rejects an import as one statement on an unlocked read, answering it as stored; an import changed since goes the locked way', async () => {
    const id = await heldImport();
    // Read, then the import changes (as an accept or another reject changes it): the reject decided on the read writes nothing.
    const read = (await readInboundAsRead(svc.db, 1, id))!;
    await svc.db('inbound_documents').where({ id }).update({ updated_at: svc.db.fn.now() });
    const rejection = decideRejection(read.row, { id, reason: 'Not ours' });
    const alone = { ...rejectionAlone(rejection.inbound, read.read), events: [], reply: {} };
    await expect(storeAlone(svc.db, alone, undefined, answer)).rejects.toBeInstanceOf(NotAsDecided);
    expect((await inboundById(svc.db, 1, id))!.status).toBe('needs_review');

    // Through the service: the reply and the event are the import as stored.
    const reply = body(await call('invoicing.inbound.reject', { action: 'reject', id, reason: 'Not ours' }));
    const stored = (await inboundById(svc.db, 1, id))!;
    expect(stored).toMatchObject({ status: 'rejected', rejection_reason: 'Not ours', supplier_key: null });
    expect(reply).toEqual({ message: 'Import rejected', inbound: toInboundRecord(stored) });
    await testing.waitUntil(() => events.some((e) => e.type === 'invoicing.inbound.rejected' && e.data.inbound_id === id));
    expect(events.find((e) => e.type === 'invoicing.inbound.rejected' && e.data.inbound_id === id)!.data).toMatchObject({
      status: 'rejected',
      invoice_number: stored.invoice_number,
      reasons: ['Not ours'],
    });

    // A second reject is refused as before, and changes nothing.
    const before = await testing.schemaSnapshot(svc.db, svc.schema);
    expect(await call('invoicing.inbound.reject', { action: 'reject', id, reason: 'Again' })).toMatchObject({
      ok: false,
      status: 400,
      code: 'invalid_state',
      message: `Import ${id} is rejected; only an import held for review is rejected by hand`,
    });
    expect(await call('invoicing.inbound.reject', { action: 'reject', id: 999_999, reason: 'x' })).toMatchObject({
      ok: false,
      code: 'not_found',
      message: 'Import 999999 not found',
    });
    expect(await testing.schemaSnapshot(svc.db, svc.schema)).toEqual(before);
  });

  it('saves the inbound settings as one statement, answering them as stored', async () => {
    const stored = async () => (await svc.db('inbound_settings').where({ org_id: 1 }).first())?.create_partners ?? false;
    expect(body(await call('invoicing.inbound.settings', { action: 'settings' })).settings).toEqual({ inbound_create_partners: false });
    expect(body(await call('invoicing.inbound.settings', { action: 'settings', inbound_create_partners: true })).settings).toEqual({
      inbound_create_partners: await stored(),
    });
    expect(await stored()).toBe(true);
    expect(body(await call('invoicing.inbound.settings', { action: 'settings' })).settings).toEqual({ inbound_create_partners: true });
    expect(body(await call('invoicing.inbound.settings', { action: 'settings', inbound_create_partners: false })).settings).toEqual({
      inbound_create_partners: false,
    });
    expect(await stored()).toBe(false);
  });

  it('marks a dispute as one statement on an unlocked read, its time as stored; an invoice changed since goes the locked way', async () => {
    const inv = body(
      await call('invoicing.invoice.create', {
        invoicetype: 'invoiceout',
        partner: 10,
        invoicedatetime: '2026-01-01T09:00:00',
        line_items: [{ product_id: 7, quantity: 1, price: 10, tax_rate: 0, tax_included: false }],
      }),
    ).invoice as { id: number; invoicenumber: string };
    const read = (await readDisputeTarget(svc.db, 1, inv.id))!;
    await svc.db('invoices').where({ id: inv.id }).update({ updated_at: svc.db.fn.now() });
    const dispute = decideDispute(read.invoice, { invoice_id: inv.id, disputed: true, reason: 'Goods damaged' });
    await expect(
      storeAlone(svc.db, { ...disputeAlone(1, dispute, read.read), events: [], reply: {} }, undefined, answer),
    ).rejects.toBeInstanceOf(NotAsDecided);
    expect((await svc.db('invoices').where({ id: inv.id }).first()).dunning_disputed).toBe(false);

    const stored = async () => svc.db('invoices').where({ id: inv.id }).first();
    const marked = body(
      await call('invoicing.dunning.dispute', { action: 'dispute', invoice_id: inv.id, disputed: true, reason: 'Goods damaged' }),
    );
    const row = await stored();
    expect(marked).toEqual({
      message: `Invoice ${inv.invoicenumber} marked disputed`,
      invoice_id: inv.id,
      invoicenumber: inv.invoicenumber,
      disputed: true,
      reason: 'Goods damaged',
      disputed_at: formatDateTime(row.dunning_disputed_at),
    });
    const again = body(await call('invoicing.dunning.dispute', { action: 'dispute', invoice_id: inv.id, disputed: true }));
    expect(again).toMatchObject({ reason: 'Goods damaged', disputed_at: marked.disputed_at });
    expect(formatDateTime((await stored()).dunning_disputed_at)).toBe(marked.disputed_at);
    const cleared = body(await call('invoicing.dunning.dispute', { action: 'dispute', invoice_id: inv.id, disputed: false }));
    expect(cleared).toMatchObject({ disputed: false, reason: null, disputed_at: null });
    expect(await stored()).toMatchObject({ dunning_disputed: false, dunning_dispute_reason: null, dunning_disputed_at: null });
  });

  it('sets the levels as one statement on an unlocked read, answering them as stored; a set since, or a first set racing, goes the locked way', async () => {
    const storedReply = async (org: number) =>
      levelsReply({ levels: await loadLevels(svc.db, org), settings: await loadSettings(svc.db, org) }, true);
    // No settings row yet: a store decided on that writes nothing once another set made one.
    const none = await readDunningSetup(svc.db, 2);
    expect(none.read).toBeNull();
    const first = decideDunningLevels(none.setup, { levels: LEVELS });
    body(await call('invoicing.dunning.levels', { action: 'levels', reference_rate: '4.5' }, 2));
    await expect(
      storeAlone(svc.db, { ...levelsAlone(2, first.store, none.read), events: [], reply: {} }, undefined, answer),
    ).rejects.toBeInstanceOf(NotAsDecided);
    expect(await loadLevels(svc.db, 2)).toEqual([]);

    // A row read, then set again: the store decided on the read writes nothing, and a listing on it answers nothing stale.
    const read = await readDunningSetup(svc.db, 2);
    const set = decideDunningLevels(read.setup, { levels: LEVELS, points: '9' });
    const list = decideDunningLevels(read.setup, {});
    body(await call('invoicing.dunning.levels', { action: 'levels', points: '10' }, 2));
    await expect(
      storeAlone(svc.db, { ...levelsAlone(2, set.store, read.read), events: [], reply: {} }, undefined, answer),
    ).rejects.toBeInstanceOf(NotAsDecided);
    await expect(
      storeAlone(svc.db, { ...levelsAlone(2, list.store, read.read), events: [], reply: {} }, undefined, answer),
    ).rejects.toBeInstanceOf(NotAsDecided);
    expect(await loadLevels(svc.db, 2)).toEqual([]);
    expect((await loadSettings(svc.db, 2)).points).toBe('10.0000');

    // Through the service: what it answers is what it stored, levels replaced and the others deleted.
    const reply = body(await call('invoicing.dunning.levels', { action: 'levels', levels: [LEVELS[1], LEVELS[0]] }, 2));
    expect(reply).toEqual(await storedReply(2));
    expect(reply).toMatchObject({ reference_rate: 4.5, points: 10, levels: [{ level: 1 }, { level: 2, fee: 5 }] });
    const fewer = body(await call('invoicing.dunning.levels', { action: 'levels', levels: [{ ...LEVELS[0], text: 'Reminder' }] }, 2));
    expect(fewer).toEqual(await storedReply(2));
    expect(fewer.levels).toEqual([{ level: 1, days_after_due: 7, fee: 0, interest: false, text: 'Reminder' }]);
    const listed = body(await call('invoicing.dunning.levels', { action: 'levels' }, 2));
    expect(listed).toEqual({ ...(await storedReply(2)), message: '1 reminder level(s)' });
  });

  describe('the books (organization 3)', () => {
    const configure = (payload: Record<string, unknown>) => svc.call('invoicing.books.configure', payload, 3);
    const waitsOnTheSettingsLock = () =>
      testing.waitUntil(async () => {
        const { rows } = await svc.db.raw<{ rows: unknown[] }>(
          `select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and wait_event = 'advisory'`,
        );
        return rows.length > 0;
      });
    const stored = async () => (await readBooksAsRead(svc.db, 3))!;

    beforeAll(async () => {
      body(await configure({ default_currency: 'EUR' }));
    });

    it('changes the lock date as one statement on an unlocked read, answering the version stored; books changed since go the locked way', async () => {
      const read = (await readBooksAsRead(svc.db, 3))!;
      const decided = decideBooksConfiguration(read, { lock_date: '2025-12-31' });
      body(await configure({ lock_date: '2025-06-30' }));
      const alone = { ...booksChangeAlone(3, decided.books, read.version), events: [], reply: {} };
      await expect(storeAlone(svc.db, alone, undefined, answer)).rejects.toBeInstanceOf(NotAsDecided);
      expect(await stored()).toMatchObject({ lockDate: '2025-06-30', version: read.version + 1 });

      const reply = body(await configure({ lock_date: '2025-12-31' }));
      const now = await stored();
      expect(reply).toEqual({
        message: 'Books configured',
        books: { default_currency: 'EUR', lock_date: '2025-12-31' },
        books_version: now.version,
      });
      expect(now).toMatchObject({ accountingCurrency: 'EUR', lockDate: '2025-12-31', version: read.version + 2 });
      // Asked again, nothing changes: the same version.
      expect(body(await configure({ lock_date: '2025-12-31', default_currency: 'EUR' }))).toEqual(reply);
      expect((await stored()).version).toBe(now.version);
    });

    it('changes the lock date only once the settings lock is free: after a change of the books, or a posting, under way', async () => {
      for (const hold of [
        (trx: typeof svc.db) => holdOrganizationSettingsExclusively(trx, 3),
        // A posting holds the settings shared while it judges its date and posts.
        (trx: typeof svc.db) => readSettings(trx, 3, { hold: true }).then(() => undefined),
      ]) {
        const before = await stored();
        const trx = await svc.db.transaction();
        await hold(trx);
        const reply = configure({ lock_date: before.lockDate === '2026-01-31' ? '2026-02-28' : '2026-01-31' });
        const settled = Symbol('settled');
        const first = await Promise.race([reply.then(() => settled), waitsOnTheSettingsLock()]);
        expect(first).not.toBe(settled);
        expect(await stored()).toEqual(before);
        await trx.commit();
        expect(body(await reply).books_version).toBe(before.version + 1);
        expect((await stored()).version).toBe(before.version + 1);
      }
    });

    it('changes the accounting currency the locked way, where whether anything posted is judged, answering it as stored', async () => {
      const before = await stored();
      expect(before).toMatchObject({ accountingCurrency: 'EUR', posted: false });
      expect(decideBooksConfiguration(before, { default_currency: 'USD' })).toMatchObject({ changed: true, currencyChanged: true });
      const reply = body(await configure({ default_currency: 'USD' }));
      const now = await stored();
      expect(reply).toEqual({
        message: 'Books configured',
        books: { default_currency: 'USD', lock_date: now.lockDate },
        books_version: now.version,
      });
      expect(now).toMatchObject({ accountingCurrency: 'USD', version: before.version + 1 });
    });
  });
});
