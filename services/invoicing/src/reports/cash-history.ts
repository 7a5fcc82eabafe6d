import type { Knex } from '@bo/runtime';
import { accountsFor } from '../domain/journal';
import type { BookHistory, HistoryAllocation, HistoryDocument, HistoryPayment, HistoryRefund } from './open-items';

const DEFAULT_RECEIVABLE = accountsFor('invoiceout', {}).trade;
const DEFAULT_PAYABLE = accountsFor('invoicein', {}).trade;

/**
 * The dated history of an organization's books (open-items.ts), optionally of one partner, read in
 * one snapshot (the caller's transaction): every posted document with its journal entry's date and
 * what it posted on its trade account, every payment with its bank line and void date, every
 * allocation with the void date of its payment, every refund. The whole history is read: a past
 * day's balances depend on everything dated up to it, and a later void or allocation dated back.
 */
export async function cashHistory(db: Knex, orgId: number, partner?: number): Promise<BookHistory> {
  const documents = await db('invoices as i')
    .join('journal_entries as e', function () {
      this.on('e.invoice_id', 'i.id').andOnVal('e.kind', 'invoice');
    })
    .leftJoin('journal_lines as l', function () {
      // The trade line: the document's own account, else the default of its side (domain/journal.ts accountsFor).
      this.on('l.entry_id', 'e.id').andOn(
        'l.account',
        db.raw(
          `coalesce(nullif(i.tradeaccount, ''), case when i.invoicetype in ('invoiceout', 'creditout') then ?::text else ?::text end)`,
          [DEFAULT_RECEIVABLE, DEFAULT_PAYABLE],
        ),
      );
    })
    .leftJoin('journal_entries as w', 'w.id', 'i.write_off_journal_entry_id')
    .where('i.org_id', orgId)
    .modify((q) => void (partner !== undefined && q.where('i.partner_id', partner)))
    .groupBy('i.id', 'w.journaldate')
    .select<HistoryDocument[]>(
      'i.id',
      'i.invoicenumber',
      'i.invoicetype',
      'i.partner_id',
      db.raw('min(e.journaldate)::text as date'),
      db.raw('i.invoicedue::text as invoicedue'),
      'i.invoicetotal as total',
      'i.currency',
      db.raw('coalesce(abs(sum(l.debit - l.credit)), 0)::text as accounting_total'),
      'i.written_off_amount',
      db.raw('w.journaldate::text as write_off_date'),
    );
  const payments = await db('payments as p')
    .where('p.org_id', orgId)
    .modify((q) => void (partner !== undefined && q.where('p.partner_id', partner)))
    .select<HistoryPayment[]>(
      'p.id',
      'p.partner_id',
      'p.direction',
      'p.amount',
      'p.currency',
      db.raw('p.payment_date::text as date'),
      'p.reference',
      // What its bank line booked, kept on the payment: 0 for one worth nothing at its rate, which posts no bank line.
      db.raw('p.accounting_amount::text as accounting_amount'),
      db.raw(`case when p.status = 'voided' then coalesce(p.void_date, p.voided_at::date)::text end as void_date`),
      db.raw(
        `(select i.invoicetype from payment_allocations a join invoices i on i.id = a.invoice_id
           where a.payment_id = p.id order by a.id limit 1) as settled_type`,
      ),
    );
  const allocations = await db('payment_allocations as a')
    .join('invoices as i', 'i.id', 'a.invoice_id')
    .leftJoin('payments as p', 'p.id', 'a.payment_id')
    .where('a.org_id', orgId)
    .modify((q) => void (partner !== undefined && q.where('i.partner_id', partner)))
    .select<HistoryAllocation[]>(
      'a.id',
      'a.payment_id',
      'a.credit_note_id',
      'a.invoice_id',
      'a.amount',
      db.raw('a.allocation_date::text as date'),
      db.raw(`case when a.status = 'voided' then coalesce(p.void_date, a.voided_at::date)::text end as void_date`),
    );
  const refunds = await db('payment_refunds')
    .where('org_id', orgId)
    .modify((q) => void (partner !== undefined && q.where('partner_id', partner)))
    .select<HistoryRefund[]>('id', 'payment_id', 'credit_note_id', 'amount', db.raw('refund_date::text as date'));
  return { documents, payments, allocations, refunds };
}
