import { invoicing, type partners } from '@bo/contracts';
import { dec, MissingRate, Money, NO_CURRENCY, type DecimalLike } from '@bo/kernel';
import { type AppError, type Knex } from '@bo/runtime';
import { decideCreditLimit, hasCreditLimit, type CreditDecision } from '../domain/credit-limit';
import { findExchangeRate } from '../exchange-rate/exchange-rate.repository';
import type { InvoiceRow } from './invoice.record';
import { invoiceRefusals } from './invoice-refusals';

/** The document being validated as the credit check weighs it: its currency and the rate it posts at. */
export interface CreditDocument {
  currency: string | null;
  /** Units of the accounting currency per one unit of `currency`; null in the accounting currency. */
  rate: DecimalLike | null;
  accounting: string | null;
  /** The organization's today: the day of the rates a figure with no document rate is weighed at. */
  today: string;
}

/** What the credit check weighs besides the partners service's view, read under the partner's credit lock (loadCreditExposure). */
export interface CreditExposure {
  /** What is due on each of the partner's open documents. */
  open: Array<Pick<InvoiceRow, 'invoicetype' | 'currency' | 'exchange_rate'> & { due: string }>;
  /** The partner's committed drafts but the one being validated. */
  committed: Array<Pick<InvoiceRow, 'invoicetotal' | 'currency' | 'exchange_rate'>>;
  /** The organization's rate of each currency the figures need, on or before the document's day. */
  tableRates: Map<string, string>;
}

/** The currency the credit limit is stated in, and the one each figure counts in (an organization with no accounting currency has no rates). */
function creditCurrencies(credit: partners.PartnerCredit, accountingCurrency: string | null) {
  const accounting = accountingCurrency ?? NO_CURRENCY;
  const limitCurrency = credit.currency ?? accounting;
  const currencyOf = (c: string | null) => (accountingCurrency === null ? limitCurrency : (c ?? accounting));
  return { accounting, limitCurrency, currencyOf };
}

/**
 * Loads what the credit check weighs (CreditExposure) for a sale to a partner with a credit limit;
 * null for one without (nothing to weigh: a partner in another currency without one needs no rate).
 * The partner's row in `partner_credit_locks` is locked first, until the caller commits, so checks
 * for one partner run one at a time; and what this service has posted counts at once (see
 * decideCreditLimit), so a sale validated a moment ago is counted even before the partners ledger has
 * applied its event. The partners service's view is asked before the transaction: it lags the
 * events anyway, and this service's own postings, read under the lock, cover what it has not seen yet.
 */
export async function loadCreditExposure(
  trx: Knex.Transaction,
  invoice: Pick<InvoiceRow, 'org_id' | 'partner_id' | 'id'>,
  credit: partners.PartnerCredit,
  doc: Pick<CreditDocument, 'accounting' | 'today'>,
): Promise<CreditExposure | null> {
  if (!hasCreditLimit(credit.credit_limit)) return null;
  // An upsert takes the row lock whether or not the row was there; nothing else ever locks it, and
  // the invoice is always locked first, so this cannot deadlock.
  await trx.raw(
    'insert into partner_credit_locks (org_id, partner_id) values (?, ?) on conflict (org_id, partner_id) do update set partner_id = excluded.partner_id',
    [invoice.org_id, invoice.partner_id],
  );
  const { accounting, limitCurrency, currencyOf } = creditCurrencies(credit, doc.accounting);
  const open = await openDueByDocument(trx, invoice.org_id, invoice.partner_id);
  const committed = await committedDrafts(trx, invoice.org_id, invoice.partner_id, invoice.id);
  const partnersCurrencies = credit.balances ? credit.balances.map((b) => currencyOf(b.currency)) : [limitCurrency];
  const needed = new Set([limitCurrency, ...partnersCurrencies, ...committed.map((d) => currencyOf(d.currency))]);
  needed.delete(accounting);
  return { open, committed, tableRates: await organizationRates(trx, invoice.org_id, [...needed], doc.today) };
}

/**
 * Refuses a sale whose credit exposure (balance + committed of other documents + its total) would
 * pass the partner's credit limit, every figure weighed in the limit's currency at its document's
 * rate (decideCreditLimit); null when it fits or the partner has no limit (`exposure` null). Pure:
 * the figures are loadCreditExposure's.
 */
export function creditLimitRefusal(
  invoice: Pick<InvoiceRow, 'partner_id' | 'invoicetotal'>,
  credit: partners.PartnerCredit,
  doc: CreditDocument,
  exposure: CreditExposure | null,
): AppError | null {
  if (!exposure || !hasCreditLimit(credit.credit_limit)) return null;
  const { accounting, limitCurrency, currencyOf } = creditCurrencies(credit, doc.accounting);
  const { open, committed, tableRates } = exposure;
  const partnersReceivable = credit.balances
    ? credit.balances.map((b) => Money.of(b.receivable, currencyOf(b.currency)))
    : [Money.of(credit.receivable, limitCurrency)];
  const amount = (value: DecimalLike, currency: string | null, rate: DecimalLike | null) => {
    const money = Money.of(value, currencyOf(currency));
    return { money, rate: rate ?? tableRates.get(money.currency) ?? null };
  };
  let decision: CreditDecision;
  try {
    decision = decideCreditLimit(
      {
        creditLimit: Money.of(credit.credit_limit, limitCurrency),
        accounting,
        limitRate: tableRates.get(limitCurrency) ?? null,
        rateOf: (currency) => tableRates.get(currency) ?? null,
      },
      {
        partnersReceivable,
        posted: open.map((d) => amount(dec(d.due).times(invoicing.receivableSign[d.invoicetype]), d.currency, d.exchange_rate)),
        committed: committed.map((d) => amount(d.invoicetotal, d.currency, d.exchange_rate)),
        document: amount(invoice.invoicetotal, doc.currency, doc.rate),
      },
    );
  } catch (err) {
    if (!(err instanceof MissingRate)) throw err;
    return invoiceRefusals.creditLimitRateMissing(limitCurrency, err.message, doc.today);
  }
  if (decision.allowed) return null;
  const own = Money.of(invoice.invoicetotal, currencyOf(doc.currency));
  const asIssued = own.currency === limitCurrency ? '' : ` (${own.toString()} at ${dec(doc.rate ?? 1).toFixed()})`;
  return invoiceRefusals.creditLimitExceeded(
    `Credit limit exceeded for partner ${invoice.partner_id}: balance ${decision.balance.toString()} + committed ${decision.committed.toString()} ` +
      `+ this invoice ${decision.document.toString()}${asIssued} = ${decision.exposure.toString()}, ${decision.over.toString()} above the credit limit ${Money.of(credit.credit_limit, limitCurrency).toString()}; ` +
      `send override_credit_limit: true to validate anyway`,
  );
}

/** The organization's latest rate on or before `day` of each currency (to its accounting currency) that has one. */
async function organizationRates(db: Knex, orgId: number, currencies: string[], day: string): Promise<Map<string, string>> {
  const rates = new Map<string, string>();
  for (const currency of currencies) {
    const found = currency === NO_CURRENCY ? null : await findExchangeRate(db, orgId, currency, day);
    if (found) rates.set(currency, found.rate);
  }
  return rates;
}

/*
 * The two sums read under the partner's credit lock, each served by a partial index of its own
 * (invoices_partner_open, invoices_partner_committed_out): a validation reads the partner's open and
 * committed invoices, not the organization's. The statuses are written into the statements rather
 * than bound, so that the plan PostgreSQL keeps for a prepared statement can use those indexes too
 * (a bound value cannot prove a partial index's condition).
 */

/** What is due on each of the partner's open documents, with its type, currency and rate (decideCreditLimit weighs them). */
export function openDueByDocument(db: Knex, orgId: number, partnerId: number) {
  return db('invoices')
    .where({ org_id: orgId, partner_id: partnerId })
    .whereRaw("invoicestatus = 'open'")
    .select<Array<Pick<InvoiceRow, 'invoicetype' | 'currency' | 'exchange_rate'> & { due: string }>>(
      'invoicetype',
      'currency',
      'exchange_rate',
      db.raw('invoicetotal - amount_paid as due'),
    );
}

/**
 * Committed: customer invoices (`invoiceout`) the server made from converted quotations and not validated or
 * cancelled yet, but the one being validated; a credit note or a vendor document in the making
 * commits no credit (customerExposure). This service makes every such invoice, so its own drafts are
 * the freshest view of the commitments the partners service counts from events (it may not have seen
 * the latest conversion yet).
 */
export function committedDrafts(db: Knex, orgId: number, partnerId: number, exceptId: number) {
  return db('invoices')
    .where({ org_id: orgId, partner_id: partnerId })
    .whereRaw("converted_from_quotation_id is not null and invoicetype = 'invoiceout' and invoicestatus in ('draft', 'proforma')")
    .whereNot('id', exceptId)
    .select<Array<Pick<InvoiceRow, 'invoicetotal' | 'currency' | 'exchange_rate'>>>('invoicetotal', 'currency', 'exchange_rate');
}
