import { randomUUID } from 'node:crypto';
import { createDb, migrate, type Knex } from '@bo/runtime';
import * as testing from '@bo/testkit';
import { partnersMigrations } from '../src/migrations';

/** Data migrations over rows as earlier versions of the service left them, on real PostgreSQL. */
describe('partners migrations over data of earlier versions', () => {
  const schema = 'partners';
  let database: testing.TestDatabase;
  let db: Knex;
  const names = partnersMigrations.map((m) => m.name);
  const upTo = (name: string) => partnersMigrations.slice(0, names.indexOf(name));

  beforeAll(async () => {
    database = await testing.createTestDatabase();
    db = createDb(database.url, schema);
    await migrate(db, schema, upTo('003_exposure_by_receivable'));
  });
  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
  });

  it("counts each partner's receivable from the rows already posted: customer documents and their payments, not the vendor side", async () => {
    const [both] = await db('partners')
      .insert({ org_id: 1, partnername: 'Both', display_name: 'Both', partner_type: 'both', balance: '440.00' })
      .returning<Array<{ id: number }>>('id');
    const [quiet] = await db('partners')
      .insert({ org_id: 1, partnername: 'Quiet', display_name: 'Quiet', partner_type: 'customer' })
      .returning<Array<{ id: number }>>('id');
    const row = (type: string, source: string, sourceId: number, invoiceId: number, effect: string) => ({
      org_id: 1,
      partner_id: both!.id,
      type,
      source,
      source_id: sourceId,
      invoice_id: invoiceId,
      document_number: `DOC-${invoiceId}`,
      date: '2026-03-01',
      amount: effect.replace('-', ''),
      balance_effect: effect,
      event_id: randomUUID(),
    });
    await db('partner_transactions').insert([
      row('vendor_credit', 'invoice', 611, 611, '500'),
      row('bill', 'invoice', 612, 612, '-80'),
      row('invoice', 'invoice', 613, 613, '200'),
      row('credit_note', 'invoice', 614, 614, '-50'),
      row('payment', 'payment', 6110, 611, '-100'),
      row('payment', 'payment', 6130, 613, '-30'),
    ]);

    await migrate(db, schema, partnersMigrations);

    const partners = await db('partners').whereIn('id', [both!.id, quiet!.id]).orderBy('id').select('balance', 'receivable');
    expect(partners).toEqual([
      { balance: '440.00', receivable: '120.00' },
      { balance: '0.00', receivable: '0.00' },
    ]);
    const effects = await db('partner_transactions').orderBy('source_id').select('source_id', 'receivable_effect');
    expect(effects).toEqual([
      { source_id: 611, receivable_effect: '0.00' },
      { source_id: 612, receivable_effect: '0.00' },
      { source_id: 613, receivable_effect: '200.00' },
      { source_id: 614, receivable_effect: '-50.00' },
      { source_id: 6110, receivable_effect: '0.00' },
      { source_id: 6130, receivable_effect: '-30.00' },
    ]);
  });

  it('keeps the ledger amounts exact from 006 on: rows stored before read as they did, a fils stays a fils, a new zero reads 0.00', async () => {
    // Runs after the test above has migrated every row it wrote to the latest version.
    const before = await db('partner_transactions').orderBy('id').select('amount', 'balance_effect');
    expect(before.map((r) => [r.amount, r.balance_effect])[0]).toEqual(['500.00', '500.00']);
    const [dinar] = await db('partners')
      .insert({ org_id: 1, partnername: 'Dinar', display_name: 'Dinar', partner_type: 'customer' })
      .returning<Array<{ id: number }>>('id');
    await db('partner_transactions').insert({
      org_id: 1,
      partner_id: dinar!.id,
      type: 'invoice',
      source: 'invoice',
      source_id: 900,
      invoice_id: 900,
      document_number: 'INV-900',
      date: '2026-03-01',
      amount: '10.005',
      balance_effect: '10.005',
      receivable_effect: '10.005',
      event_id: randomUUID(),
    });
    await db('commitments').insert({ org_id: 1, invoice_id: 901, partner_id: dinar!.id, amount: '2.222', status: 'open' });
    expect(await db('partners').where({ id: dinar!.id }).first('balance', 'receivable', 'committed')).toEqual({
      balance: '0.00',
      receivable: '0.00',
      committed: '0.00',
    });
    await db('partners')
      .where({ id: dinar!.id })
      .update({ balance: db.raw('balance + 10.005'), committed: db.raw('committed + 2.222') });
    expect(await db('partners').where({ id: dinar!.id }).first('balance', 'committed')).toEqual({ balance: '10.005', committed: '2.222' });
    expect(await db('partner_transactions').where({ source_id: 900 }).first('amount', 'balance_effect', 'receivable_effect')).toEqual({
      amount: '10.005',
      balance_effect: '10.005',
      receivable_effect: '10.005',
    });
    expect(await db('commitments').where({ invoice_id: 901 }).first('amount')).toEqual({ amount: '2.222' });
  });

  it('keeps credit limits to the fils from 007 on: those stored before read as they did, a new zero reads 0.00', async () => {
    const stored = await db('partners').whereNot({ partnername: 'Dinar' }).pluck('credit_limit');
    expect(stored.length).toBeGreaterThan(0);
    expect(new Set(stored)).toEqual(new Set(['0.00']));
    const [limited] = await db('partners')
      .insert({ org_id: 1, partnername: 'Limited', display_name: 'Limited', partner_type: 'customer' })
      .returning<Array<{ id: number; credit_limit: string }>>(['id', 'credit_limit']);
    expect(limited?.credit_limit).toBe('0.00');
    await db('partners').where({ id: limited!.id }).update({ credit_limit: '10.005' });
    expect(await db('partners').where({ id: limited!.id }).first('credit_limit')).toEqual({ credit_limit: '10.005' });
  });
});

/** Migration 012 over balances an earlier ledger kept: the records' figures weighed as the balance view weighs them. */
describe('partners migration 012: the records weighed', () => {
  const schema = 'partners';
  let database: testing.TestDatabase;
  let db: Knex;
  const names = partnersMigrations.map((m) => m.name);

  beforeAll(async () => {
    database = await testing.createTestDatabase();
    db = createDb(database.url, schema);
    await migrate(db, schema, partnersMigrations.slice(0, names.indexOf('012_partner_figures_weighed')));
  });
  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
  });

  it('given EUR books and face sums, then told USD is the journal’s, untold USD at its documents’ rate, a USD partner as it was', async () => {
    await db('organization_profiles').insert({ org_id: 1, default_currency: 'EUR', version: 1 });
    const partner = async (name: string, currency: string | null, balance: string, committed = '0') =>
      (
        await db('partners')
          .insert({
            org_id: 1,
            partnername: name,
            display_name: name,
            partner_type: 'customer',
            currency,
            balance,
            receivable: balance,
            committed,
          })
          .returning<Array<{ id: number }>>('id')
      )[0]!.id;
    const told = await partner('Told', null, '110');
    const untold = await partner('Untold', null, '50', '20');
    const inUsd = await partner('In USD', 'USD', '100');
    const euro = await partner('Euro', null, '80.00');
    const balances = (partner_id: number, currency: string, balance: string, extra: Record<string, string> = {}) => ({
      org_id: 1,
      partner_id,
      currency,
      balance,
      receivable: balance,
      ...extra,
    });
    await db('partner_balances').insert([
      // A 100 USD invoice booked at 90.00 EUR, its event told it; and 10 EUR.
      balances(told, 'USD', '100', {
        documents_total: '100',
        documents_accounting: '90',
        booked_balance: '90',
        booked_receivable: '90',
        booked_face_balance: '100',
        booked_face_receivable: '100',
      }),
      balances(told, 'EUR', '10'),
      // 50 USD owed of documents posted at 92.35 for 100 (46.175: 46.18 half-up), 20 USD committed (18.47).
      balances(untold, 'USD', '50', { committed: '20', documents_total: '100', documents_accounting: '92.35' }),
      balances(inUsd, 'USD', '100', {
        documents_total: '100',
        documents_accounting: '90',
        booked_balance: '90',
        booked_face_balance: '100',
      }),
      balances(euro, 'EUR', '80'),
    ]);

    await migrate(db, schema, partnersMigrations);

    const figures = await db('partners')
      .whereIn('id', [told, untold, inUsd, euro])
      .orderBy('id')
      .select('partnername', 'balance', 'receivable', 'committed');
    expect(figures.map((f) => [f.partnername, Number(f.balance), Number(f.receivable), Number(f.committed)])).toEqual([
      ['Told', 100, 100, 0],
      ['Untold', 46.18, 46.18, 18.47],
      ['In USD', 100, 100, 0],
      ['Euro', 80, 80, 0],
    ]);
    // A figure that does not change is not written: it reads as it was stored.
    expect(await db('partners').where({ id: euro }).first('balance')).toEqual({ balance: '80.00' });
  });
});
