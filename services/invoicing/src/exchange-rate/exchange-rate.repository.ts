import type { invoicing } from '@bo/contracts';
import { formatDate, formatDateTime, formatDateTimeSql, toNumber } from '@bo/kernel';
import { selectPage, type Knex, type OneStatementWrite, type PageRequest } from '@bo/runtime';
import { readSettings } from '@bo/billing';

/** A row of `exchange_rates` (migration 014). */
export interface ExchangeRateRow {
  id: number;
  org_id: number;
  currency: string;
  rate_date: string;
  /** Exact decimal text, up to 10 places. */
  rate: string;
  accounting_currency: string;
  created_at: Date;
  updated_at: Date;
}

/** The rate a document in another currency is posted at: units of `accounting_currency` per unit of `currency`. */
export interface ExchangeRate {
  currency: string;
  /** The day the rate applies from (on or before the day asked). */
  date: string;
  /** Exact decimal text. */
  rate: string;
  accounting_currency: string;
}

/**
 * The organization's accounting currency: the currency its books (journal, VAT report) are kept in,
 * its profile's `default_currency` as this service's read model has it; null until it has one.
 * `hold` reads it under the organization's settings lock, shared (readSettings), for a write that
 * stores something against it: a change of the books under way is waited for, not read past. For a
 * handler needing only this setting; one needing others reads its settings once (readSettings).
 */
export async function accountingCurrency(db: Knex, orgId: number, opts: { hold?: boolean } = {}): Promise<string | null> {
  return (await readSettings(db, orgId, opts)).taxPolicy.accounting_currency;
}

/**
 * The latest rate of `currency` on or before `date` (the organization's local date), against the
 * organization's accounting currency as it is now; null when none is set (a rate set against an
 * earlier accounting currency no longer counts). Validation posts a document in another currency
 * with it when the document gives no rate of its own.
 */
export async function findExchangeRate(db: Knex, orgId: number, currency: string, date: string): Promise<ExchangeRate | null> {
  const row = await db('exchange_rates as r')
    .join('organization_settings as s', (j) => j.on('s.org_id', 'r.org_id').andOn('s.default_currency', 'r.accounting_currency'))
    .select('r.currency', 'r.rate_date', 'r.rate', 'r.accounting_currency')
    .where({ 'r.org_id': orgId, 'r.currency': currency })
    .where('r.rate_date', '<=', date)
    .orderBy('r.rate_date', 'desc')
    .first<Pick<ExchangeRateRow, 'currency' | 'rate_date' | 'rate' | 'accounting_currency'> | undefined>();
  if (!row) return null;
  return {
    currency: row.currency,
    date: formatDate(row.rate_date) as string,
    rate: row.rate,
    accounting_currency: row.accounting_currency,
  };
}

export function toExchangeRateRecord(row: ExchangeRateRow): invoicing.ExchangeRateRecord {
  return exchangeRateRecordOf(row, {
    id: row.id,
    created_at: formatDateTime(row.created_at) as string,
    updated_at: formatDateTime(row.updated_at) as string,
  });
}

/** A rate as replies show it: what was set, and what its row's store made (its id and times, as formatDateTime writes them). */
export function exchangeRateRecordOf(
  rate: Pick<ExchangeRateRow, 'currency' | 'rate_date' | 'rate' | 'accounting_currency'>,
  made: { id: number; created_at: string; updated_at: string },
): invoicing.ExchangeRateRecord {
  return {
    id: made.id,
    currency: rate.currency,
    date: formatDate(rate.rate_date) as string,
    rate: toNumber(rate.rate),
    accounting_currency: rate.accounting_currency,
    created_at: made.created_at,
    updated_at: made.updated_at,
  };
}

/**
 * upsertExchangeRate as one statement (one-statement.ts), under the organization's settings lock,
 * shared (organization_settings_held), and only while its accounting currency is still the one the
 * rate was decided against; else nothing. The id and times of the row it writes (a new one, or the one
 * it replaces) are filled in where the reply says `id`, `created_at` and `updated_at`.
 */
export function exchangeRateSetAlone(row: {
  org_id: number;
  currency: string;
  rate_date: string;
  rate: string;
  accounting_currency: string;
}): Pick<OneStatementWrite, 'parts' | 'expects' | 'fills'> {
  return {
    parts: [
      {
        sql: `insert into exchange_rates (org_id, currency, rate_date, rate, accounting_currency)
              select ?::int, ?::text, ?::date, ?::numeric, h.default_currency
                from organization_settings_held(?::int) h where h.default_currency = ?::text
              on conflict (org_id, currency, rate_date)
              do update set rate = excluded.rate, accounting_currency = excluded.accounting_currency, updated_at = now()
              returning id, ${formatDateTimeSql('created_at')} as created_at, ${formatDateTimeSql('updated_at')} as updated_at`,
        bindings: [row.org_id, row.currency, row.rate_date, row.rate, row.org_id, row.accounting_currency],
      },
    ],
    expects: '(select count(*) from store1) = 1',
    fills: [
      { key: 'id', sql: '(select id::text from store1)' },
      { key: 'created_at', sql: '(select to_json(created_at)::text from store1)' },
      { key: 'updated_at', sql: '(select to_json(updated_at)::text from store1)' },
    ],
  };
}

/** The organization's rate of a currency and day read with no lock, with its row version (`read`, its xmin); undefined when there is none. */
export async function readExchangeRate(
  db: Knex,
  orgId: number,
  currency: string,
  date: string,
): Promise<{ row: ExchangeRateRow; read: string } | undefined> {
  const { rows } = await db.raw<{ rows: Array<ExchangeRateRow & { read_version: string }> }>(
    'select r.*, r.xmin::text as read_version from exchange_rates r where r.org_id = ? and r.currency = ? and r.rate_date = ?::date',
    [orgId, currency, date],
  );
  const found = rows[0];
  if (!found) return undefined;
  const { read_version: read, ...row } = found;
  return { row, read };
}

/** The delete of a rate read (readExchangeRate) as one statement, only while it is the row read; else nothing. */
export function exchangeRateDeleteAlone(id: number, read: string): Pick<OneStatementWrite, 'parts' | 'expects'> {
  return {
    parts: [{ sql: 'delete from exchange_rates where id = ? and xmin::text = ? returning id', bindings: [id, read] }],
    expects: '(select count(*) from store1) = 1',
  };
}

/** Sets the rate of a currency and day, replacing one set before (one upsert: of two concurrent sets, the later commit's stays). */
export async function upsertExchangeRate(
  db: Knex,
  row: { org_id: number; currency: string; rate_date: string; rate: string; accounting_currency: string },
): Promise<ExchangeRateRow> {
  const [stored] = (await db('exchange_rates')
    .insert(row)
    .onConflict(['org_id', 'currency', 'rate_date'])
    .merge({ rate: row.rate, accounting_currency: row.accounting_currency, updated_at: db.fn.now() })
    .returning('*')) as ExchangeRateRow[];
  return stored as ExchangeRateRow;
}

/** Deletes the rate of a currency and day, answering it (undefined when there was none). */
export async function deleteExchangeRate(db: Knex, orgId: number, currency: string, date: string): Promise<ExchangeRateRow | undefined> {
  const [row] = (await db('exchange_rates')
    .where({ org_id: orgId, currency, rate_date: date })
    .delete()
    .returning('*')) as ExchangeRateRow[];
  return row;
}

/** A page of the organization's rates, by currency then newest day first, filtered by currency and days (both inclusive). */
export async function pageOfExchangeRates(
  db: Knex,
  orgId: number,
  filters: { currency?: string | undefined; date_from?: string | undefined; date_to?: string | undefined },
  page: PageRequest,
) {
  const filtered = db('exchange_rates')
    .where({ org_id: orgId })
    .modify((q: Knex.QueryBuilder) => {
      if (filters.currency) q.where({ currency: filters.currency });
      if (filters.date_from) q.where('rate_date', '>=', filters.date_from);
      if (filters.date_to) q.where('rate_date', '<=', filters.date_to);
    });
  return selectPage<ExchangeRateRow>(filtered.select('*'), page, (p) =>
    p.orderBy([{ column: 'currency' }, { column: 'rate_date', order: 'desc' }, { column: 'id' }]),
  );
}
