import type { partners } from '@bo/contracts';
import { amountText } from '@bo/kernel';
import { AppError, type Knex } from '@bo/runtime';
import { decideCredit, ownReceivable } from '../domain/credit';
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
export async function assertCreditAvailable(trx: Knex.Transaction, invoice: InvoiceRow, credit: partners.PartnerCredit): Promise<void> {
  // An upsert takes the row lock whether or not the row was there; nothing else ever locks it, and
  // the invoice is always locked first, so this cannot deadlock.
  await trx.raw(
    'insert into partner_credit_locks (org_id, partner_id) values (?, ?) on conflict (org_id, partner_id) do update set partner_id = excluded.partner_id',
    [invoice.org_id, invoice.partner_id],
  );
  const dueByType = await openDueByType(trx, invoice.org_id, invoice.partner_id);
  const committed = await committedDrafts(trx, invoice.org_id, invoice.partner_id, invoice.id);
  const decision = decideCredit({
    creditLimit: credit.credit_limit,
    partnersReceivable: credit.receivable,
    ownReceivable: ownReceivable(dueByType),
    committed: committed[0]?.total ?? '0',
    total: invoice.invoicetotal,
  });
  if (decision.allowed) return;
  throw new AppError(
    400,
    'credit_limit_exceeded',
    `Credit limit exceeded for partner ${invoice.partner_id}: balance ${amountText(decision.balance)} + committed ${amountText(decision.committed)} ` +
      `+ this invoice ${amountText(invoice.invoicetotal)} = ${amountText(decision.exposure)}, above the credit limit ${amountText(credit.credit_limit)}; ` +
      `send override_credit_limit: true to validate anyway`,
  );
}

/*
 * The two sums read under the partner's credit lock, each served by a partial index of its own
 * (invoices_partner_open, invoices_partner_committed_out): a validation reads the partner's open and
 * committed invoices, not the organization's. The statuses are written into the statements rather
 * than bound, so that the plan PostgreSQL keeps for a prepared statement can use those indexes too
 * (a bound value cannot prove a partial index's condition).
 */

/** What is due on the partner's open documents, by type (ownReceivable signs them). */
export function openDueByType(db: Knex, orgId: number, partnerId: number) {
  return db('invoices')
    .where({ org_id: orgId, partner_id: partnerId })
    .whereRaw("invoicestatus = 'open'")
    .groupBy('invoicetype')
    .select<Array<Pick<InvoiceRow, 'invoicetype'> & { due: string }>>('invoicetype', db.raw('sum(invoicetotal - amount_paid) as due'));
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
    .sum<{ total: string | null }[]>({ total: 'invoicetotal' });
}
