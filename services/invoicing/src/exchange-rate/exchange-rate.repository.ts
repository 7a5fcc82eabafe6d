import type { invoicing } from '@bo/contracts';
import { formatDate, formatDateTime, toNumber } from '@bo/kernel';
import { organizationSettings, type Knex } from '@bo/runtime';

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
 */
export async function accountingCurrency(db: Knex, orgId: number): Promise<string | null> {
  return (await organizationSettings(db, orgId))?.default_currency ?? null;
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
  return {
    id: row.id,
    currency: row.currency,
    date: formatDate(row.rate_date) as string,
    rate: toNumber(row.rate),
    accounting_currency: row.accounting_currency,
    created_at: formatDateTime(row.created_at) as string,
    updated_at: formatDateTime(row.updated_at) as string,
  };
}
