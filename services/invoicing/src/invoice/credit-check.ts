import { AppError, dec, type Knex } from '@bo/runtime';
import { decideCredit, ownBalance } from '../domain/credit';
import type { PartnerCredit } from '../partners/partner-directory';
import type { InvoiceRow } from './invoice.record';

/**
 * Refuses a sale whose credit exposure (balance + committed of other documents + its total) would
 * pass the partner's credit limit. The partner's row in
 * `partner_credit_locks` is locked until the caller commits, so checks for one partner run one at a
 * time; and what this service has posted counts at once (see decideCredit), so a sale validated a
 * moment ago is counted even before the partners ledger has applied its event. The partners
 * service's view is asked before the transaction: it lags the events anyway, and this service's
 * own postings, read under the lock, cover what it has not seen yet.
 */
export async function assertCreditAvailable(trx: Knex.Transaction, invoice: InvoiceRow, credit: PartnerCredit): Promise<void> {
  // An upsert takes the row lock whether or not the row was there; nothing else ever locks it, and
  // the invoice is always locked first, so this cannot deadlock.
  await trx.raw(
    'insert into partner_credit_locks (org_id, partner_id) values (?, ?) on conflict (org_id, partner_id) do update set partner_id = excluded.partner_id',
    [invoice.org_id, invoice.partner_id],
  );
  const dueByType = await trx('invoices')
    .where({ org_id: invoice.org_id, partner_id: invoice.partner_id, invoicestatus: 'open' })
    .groupBy('invoicetype')
    .select<Array<Pick<InvoiceRow, 'invoicetype'> & { due: string }>>('invoicetype', trx.raw('sum(invoicetotal - amount_paid) as due'));
  // Committed: invoices made from converted quotations and not validated or cancelled yet. This
  // service makes every such invoice, so its own drafts are the freshest view of the commitments
  // the partners service counts from events (it may not have seen the latest conversion yet).
  const committed = await trx('invoices')
    .where({ org_id: invoice.org_id, partner_id: invoice.partner_id, sourcetype: 'quotation' })
    .whereIn('invoicestatus', ['draft', 'proforma'])
    .whereNot('id', invoice.id)
    .sum<{ total: string | null }[]>({ total: 'invoicetotal' });
  const decision = decideCredit({
    creditLimit: credit.credit_limit,
    partnersBalance: credit.balance,
    ownBalance: ownBalance(dueByType),
    committed: committed[0]?.total ?? '0',
    total: invoice.invoicetotal,
  });
  if (decision.allowed) return;
  throw new AppError(
    400,
    'credit_limit_exceeded',
    `Credit limit exceeded for partner ${invoice.partner_id}: balance ${decision.balance.toFixed(2)} + committed ${decision.committed.toFixed(2)} ` +
      `+ this invoice ${dec(invoice.invoicetotal).toFixed(2)} = ${decision.exposure.toFixed(2)}, above the credit limit ${dec(credit.credit_limit).toFixed(2)}; ` +
      `send override_credit_limit: true to validate anyway`,
  );
}
