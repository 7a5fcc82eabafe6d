import { AppError, type Knex } from '@bo/runtime';
import { decideCredit, ownBalance } from '../domain/credit';
import type { PartnerCredit } from '../partners/partner-directory';
import type { InvoiceRow } from './invoice.record';

/**
 * Refuses a sale that would take the partner past its credit limit. The partner's row in
 * `partner_credit_locks` is locked until the caller commits, so checks for one partner run one at a
 * time; and what this service has posted counts at once (see decideCredit), so a sale validated a
 * moment ago is counted even before the partners ledger has applied its event. The partners
 * service's view is asked before the transaction: it lags the events anyway, and this service's
 * own postings, read under the lock, cover what it has not seen yet.
 */
export async function assertCreditAvailable(trx: Knex.Transaction, invoice: InvoiceRow, credit: PartnerCredit): Promise<void> {
  // An upsert takes the row lock whether or not the row was there; nothing else ever locks it, and
  // the invoice is always locked first, so this cannot deadlock.
  await trx.raw('insert into partner_credit_locks (org_id, partner_id) values (?, ?) on conflict (org_id, partner_id) do update set partner_id = excluded.partner_id', [
    invoice.org_id,
    invoice.partner_id,
  ]);
  const dueByType = await trx('invoices')
    .where({ org_id: invoice.org_id, partner_id: invoice.partner_id, invoicestatus: 'open' })
    .groupBy('invoicetype')
    .select('invoicetype', trx.raw('sum(invoicetotal - amount_paid) as due'));
  const decision = decideCredit({ creditLimit: credit.credit_limit, partnersBalance: credit.balance, ownBalance: ownBalance(dueByType), total: invoice.invoicetotal });
  if (decision.allowed) return;
  throw new AppError(
    400,
    'credit_limit_exceeded',
    `Credit limit exceeded for partner ${invoice.partner_id}: available credit is ${decision.available.toFixed(2)}, ` +
      `invoice total is ${invoice.invoicetotal}; send override_credit_limit: true to validate anyway`,
  );
}
