import { holdOrganizationSettingsExclusively } from '@bo/billing';
import * as testing from '@bo/testkit';
import { storeBooks } from '../src/book/book.repository';
import { NotAsDecided, storeAlone } from '@bo/runtime';
import {
  exchangeRateDeleteAlone,
  findExchangeRate,
  readExchangeRate,
  toExchangeRateRecord,
} from '../src/exchange-rate/exchange-rate.repository';
import { setAccountingCurrency } from './books.fixtures';
import { body, startWithFakePartners } from './fixtures';

describe('invoicing service: exchange rates', () => {
  let svc: testing.TestService;

  beforeAll(async () => {
    ({ svc } = await startWithFakePartners([]));
    await setAccountingCurrency(svc, 1, 'EUR');
    await setAccountingCurrency(svc, 2, 'USD');
  });
  afterAll(async () => {
    await svc?.stop();
  });

  const call = (action: string, payload: Record<string, unknown>, org = 1) =>
    svc.call('invoicing.exchange_rate.' + action, { userid: '5', action, ...payload }, org);
  const set = (currency: string, date: string, rate: unknown, org = 1) => call('set', { currency, date, rate }, org);
  const stored = (org = 1) =>
    svc
      .db('exchange_rates')
      .where({ org_id: org })
      .orderBy(['currency', 'rate_date'])
      .select('currency', svc.db.raw('rate_date::text as date'), 'rate');

  it('sets a rate, and setting the same currency and day again replaces it', async () => {
    const first = body(await set('usd', '2026-03-02', '1.0856'));
    expect(first.exchange_rate).toMatchObject({ currency: 'USD', date: '2026-03-02', rate: 1.0856, accounting_currency: 'EUR' });
    const again = body(await set('USD', '2026-03-02', 1.09));
    expect(again.exchange_rate).toMatchObject({ id: first.exchange_rate.id, currency: 'USD', date: '2026-03-02', rate: 1.09 });
    expect(await stored()).toEqual([{ currency: 'USD', date: '2026-03-02', rate: '1.0900000000' }]);
  });

  it('keeps ten decimals exactly', async () => {
    const reply = body(await set('JPY', '2026-03-02', '0.0061234567'));
    expect(reply.exchange_rate.rate).toBe(0.0061234567);
    expect((await stored()).find((r) => r.currency === 'JPY')?.rate).toBe('0.0061234567');
  });

  it('refuses by name what it cannot keep, and writes nothing', async () => {
    const before = await stored();
    const refusals = [
      [await set('EUR', '2026-03-02', 1), 'validation_failed', 'currency'],
      [await set('EURO', '2026-03-02', 1), 'validation_failed', 'currency'],
      [await set('GBP', '2026-02-30', 1), 'validation_failed', 'date'],
      [await set('GBP', '2026-03-02', 0), 'validation_failed', 'rate'],
      [await set('GBP', '2026-03-02', '-1.5'), 'validation_failed', 'rate'],
      [await set('GBP', '2026-03-02', '0.00000000001'), 'validation_failed', 'rate'],
      [await set('GBP', '2026-03-02', '100000000'), 'validation_failed', 'rate'],
      [await call('list', { date_from: '2026-03-03', date_to: '2026-03-02' }), 'validation_failed', 'date_from'],
    ] as const;
    for (const [reply, code, field] of refusals) {
      expect(reply).toMatchObject({ ok: false, status: 400, code });
      expect(!reply.ok && reply.errors?.map((e) => e.field)).toEqual([field]);
    }
    expect(await stored()).toEqual(before);
  });

  it('refuses a rate while the organization has no accounting currency', async () => {
    const reply = await set('USD', '2026-03-02', 1.1, 3);
    expect(reply).toMatchObject({ ok: false, status: 400, code: 'invalid_state' });
    expect(await stored(3)).toEqual([]);
  });

  it('lists by currency and date range, page by page', async () => {
    for (const [day, rate] of [
      ['2026-01-05', '0.81'],
      ['2026-01-06', '0.82'],
      ['2026-01-07', '0.83'],
    ] as const)
      body(await set('GBP', day, rate));
    const page1 = body(await call('list', { currency: 'gbp', date_from: '2026-01-05', date_to: '2026-01-07', page_size: 2 }));
    expect(page1.exchange_rates.map((r: any) => [r.date, r.rate])).toEqual([
      ['2026-01-07', 0.83],
      ['2026-01-06', 0.82],
    ]);
    expect(page1.pagination).toMatchObject({ page_number: 1, page_size: 2, total_items: 3, total_pages: 2, has_next: true });
    const page2 = body(
      await call('list', { currency: 'GBP', date_from: '2026-01-05', date_to: '2026-01-07', page_size: 2, page_number: 2 }),
    );
    expect(page2.exchange_rates.map((r: any) => r.date)).toEqual(['2026-01-05']);
    const all = body(await call('list', {}));
    expect(all.exchange_rates.map((r: any) => r.currency)).toEqual(['GBP', 'GBP', 'GBP', 'JPY', 'USD']);
    // Another organization's rates are its own.
    expect(body(await call('list', {}, 2)).exchange_rates).toEqual([]);
  });

  it('deletes a rate by currency and day; a rate that is not there is not_found', async () => {
    body(await set('CHF', '2026-01-05', '0.95'));
    const deleted = body(await call('delete', { currency: 'CHF', date: '2026-01-05' }));
    expect(deleted.exchange_rate).toMatchObject({ currency: 'CHF', date: '2026-01-05', rate: 0.95 });
    expect(await call('delete', { currency: 'CHF', date: '2026-01-05' })).toMatchObject({ ok: false, status: 400, code: 'not_found' });
    expect((await stored()).filter((r) => r.currency === 'CHF')).toEqual([]);
  });

  it('findExchangeRate answers the latest rate on or before the day, of the organization and its accounting currency', async () => {
    body(await set('SEK', '2026-02-01', '0.088'));
    body(await set('SEK', '2026-02-10', '0.089'));
    body(await set('SEK', '2026-02-05', '0.087', 2));
    expect(await findExchangeRate(svc.db, 1, 'SEK', '2026-01-31')).toBeNull();
    expect(await findExchangeRate(svc.db, 1, 'SEK', '2026-02-01')).toEqual({
      currency: 'SEK',
      date: '2026-02-01',
      rate: '0.0880000000',
      accounting_currency: 'EUR',
    });
    expect((await findExchangeRate(svc.db, 1, 'SEK', '2026-02-09'))?.rate).toBe('0.0880000000');
    expect((await findExchangeRate(svc.db, 1, 'SEK', '2099-12-31'))?.date).toBe('2026-02-10');
    expect((await findExchangeRate(svc.db, 2, 'SEK', '2026-02-09'))?.rate).toBe('0.0870000000');
    expect(await findExchangeRate(svc.db, 1, 'NOK', '2026-02-09')).toBeNull();
    // A rate set against an earlier accounting currency no longer counts.
    await setAccountingCurrency(svc, 2, 'CHF');
    expect(await findExchangeRate(svc.db, 2, 'SEK', '2026-02-09')).toBeNull();
  });

  it('concurrent sets of one currency and day leave one rate, one of theirs', async () => {
    const rates = ['1.11', '1.12', '1.13', '1.14', '1.15', '1.16'];
    const replies = await Promise.all(rates.map((rate) => set('CAD', '2026-04-01', rate)));
    replies.forEach((r) => body(r));
    const rows = (await stored()).filter((r) => r.currency === 'CAD');
    expect(rows).toHaveLength(1);
    expect(rates.map((r) => `${r}00000000`)).toContain(rows[0]!.rate);
  });

  it('a set while the books change their accounting currency is judged against the new one, not kept against the old', async () => {
    // A change of the books (configure-books: the settings lock exclusive, then the row) held open by
    // the test while a rate is set: the set must wait for it and store the rate against the new
    // accounting currency, where findExchangeRate looks, not against the old one nothing reads.
    const org = 3;
    await setAccountingCurrency(svc, org, 'EUR');
    const books = await svc.db.transaction();
    await holdOrganizationSettingsExclusively(books, org);
    await storeBooks(books, org, 'USD', null);
    const reply = set('GBP', '2026-04-01', '1.25', org);
    const settled = Symbol('settled');
    const first = await Promise.race([
      reply.then(() => settled),
      testing.waitUntil(async () => {
        const { rows } = await svc.db.raw<{ rows: unknown[] }>(
          `select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and wait_event = 'advisory'`,
        );
        return rows.length > 0;
      }),
    ]);
    await books.commit();
    expect(first).not.toBe(settled);
    expect(body(await reply).exchange_rate).toMatchObject({ currency: 'GBP', rate: 1.25, accounting_currency: 'USD' });
    expect(await findExchangeRate(svc.db, org, 'GBP', '2026-04-01')).toMatchObject({ rate: '1.2500000000', accounting_currency: 'USD' });
  });

  it('sets and deletes as one statement, answering the row as stored; a rate set again since its read is not deleted', async () => {
    const set1 = body(await set('CHF', '2026-05-04', '0.95')).exchange_rate;
    const row = await svc.db('exchange_rates').where({ id: set1.id }).first();
    expect(set1).toEqual(toExchangeRateRecord(row));
    const again = body(await set('CHF', '2026-05-04', '0.96')).exchange_rate;
    expect(again).toEqual(toExchangeRateRecord(await svc.db('exchange_rates').where({ id: set1.id }).first()));
    expect(again.created_at).toBe(set1.created_at);

    // Read, then set again: the delete decided on the read deletes nothing.
    const read = (await readExchangeRate(svc.db, 1, 'CHF', '2026-05-04'))!;
    body(await set('CHF', '2026-05-04', '0.97'));
    const alone = { ...exchangeRateDeleteAlone(read.row.id, read.read), events: [], reply: {} };
    await expect(storeAlone(svc.db, alone, undefined, { ok: true, status: 200, body: {} })).rejects.toBeInstanceOf(NotAsDecided);
    expect((await stored()).find((r) => r.currency === 'CHF')?.rate).toBe('0.9700000000');
    // Through the service: the rate as it was when deleted.
    expect(body(await call('delete', { currency: 'CHF', date: '2026-05-04' })).exchange_rate).toMatchObject({ id: set1.id, rate: 0.97 });
    expect((await stored()).find((r) => r.currency === 'CHF')).toBeUndefined();
  });

  it('a set redelivered with its operation key is applied once and answered the same', async () => {
    const key = `books-${Date.now()}`;
    const payload = { userid: '5', action: 'set', currency: 'AUD', date: '2026-04-01', rate: '0.6' };
    const first = body(await svc.call('invoicing.exchange_rate.set', payload, 1, { operationKey: key }));
    body(await set('AUD', '2026-04-01', '0.7'));
    const replayed = body(await svc.call('invoicing.exchange_rate.set', payload, 1, { operationKey: key }));
    expect(replayed).toEqual(first);
    expect((await stored()).filter((r) => r.currency === 'AUD').map((r) => r.rate)).toEqual(['0.7000000000']);
  });
});
