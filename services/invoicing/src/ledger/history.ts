import type { invoicing } from '@bo/contracts';
import type { Knex } from '@bo/runtime';

/**
 * What the ledger replays (ledger.ts): every posting of an organization's trade accounts, each with
 * the journal entry that posted it (`seq`, its id: entries are numbered under the locks of the rows
 * they settle, so their order is the posting order) and the day it posted on.
 */
export interface LedgerDocument {
  id: number;
  invoicenumber: string;
  invoicetype: invoicing.InvoiceType;
  partner_id: number;
  /** The date of its journal entry. */
  date: string;
  invoicedue: string | null;
  total: string;
  currency: string | null;
  /** What its entry posted on its trade account: the total in the accounting currency. */
  booked: string;
  seq: number;
  write_off: { amount: string; date: string; seq: number } | null;
}

export interface LedgerPayment {
  id: number;
  partner_id: number;
  direction: invoicing.PaymentDirection;
  amount: string;
  currency: string | null;
  date: string;
  reference: string | null;
  /** Its bank line: the amount in the accounting currency. */
  accounting_amount: string;
  seq: number;
  void: { date: string; seq: number } | null;
  /** The type of the first document it was allocated to, which decides its side (domain/cash.ts ledgerSide). */
  settled_type: invoicing.InvoiceType | null;
}

export interface LedgerAllocation {
  id: number;
  payment_id: number | null;
  credit_note_id: number | null;
  invoice_id: number;
  amount: string;
  date: string;
  /** The entry that posted it: its own, or the entry of the payment that made it. */
  seq: number;
  /** Undone by its payment's void (the void's date and entry are the payment's). */
  voided: boolean;
}

export interface LedgerRefund {
  id: number;
  payment_id: number | null;
  credit_note_id: number | null;
  amount: string;
  /** Its bank line: what the money paid back was worth in the accounting currency. */
  accounting_amount: string;
  date: string;
  seq: number;
}

export interface LedgerHistory {
  documents: LedgerDocument[];
  payments: LedgerPayment[];
  allocations: LedgerAllocation[];
  refunds: LedgerRefund[];
}

/**
 * Which postings to read: all of the organization's, or one partner's (a statement), or those of the
 * items that can be open at the end of `openOn` (aged balances).
 */
export interface HistoryScope {
  partner?: number;
  /**
   * Only the documents and payments open now (the running balances their rows keep: a document
   * `open`, a payment with credit left) or posted or touched by a posting dated after `openOn` (an
   * allocation, refund, void or write-off that had not happened yet that day), with every posting of
   * theirs: the
   * rest were settled by then, in both currencies, and add nothing; the payments that settled an open
   * document come with it, as their voids reopen it. Dates run forward (an allocation
   * is never dated before its source or document), so an allocation's own date says when it counted.
   */
  openOn?: string;
}

/**
 * The same candidates as the organization's (the items open now, or posted or touched after `day`),
 * found from the partner's postings dated after `day` (allocations and refunds carry their partner:
 * migration 050), its open items and the few of its documents written off and payments voided, each
 * by an index on (org, partner): a statement reads what the partner did in and after its period, not
 * everything the partner ever had. An allocation, a void's allocations and a refund always name items
 * of one partner, so nothing of the partner is left out. Dates run forward (nothing settles an item
 * before its own date), so an item posted after `day` is touched after it, or open, or settled by
 * nothing (a zero total): those are found by their date (a day early whatever the time zone), and
 * kept by their entry's. Every probe by id is `= any(array(select …))`, not `in (select …)` nor
 * `exists (…)`: PostgreSQL turns those into a hash join over the whole table once the ids are more
 * than a few hundred; an array of ids is probed through the id's index.
 */
function partnerCandidates(values: Knex.Value[], orgId: number, partner: number, day: string): string {
  const bind = (v: Knex.Value) => (values.push(v), '?');
  const mine = () => `org_id = ${bind(orgId)} and partner_id = ${bind(partner)}`;
  return `cand_docs as (
       select id from invoices where ${mine()} and invoicestatus = 'open'
       union select invoice_id from journal_entries
              where invoice_id = any(array(select id from invoices where ${mine()} and invoicedatetime >= ${bind(day)}::date - 1))
                and kind = 'invoice' and journaldate > ${bind(day)}
       union select invoice_id from payment_allocations where ${mine()} and allocation_date > ${bind(day)}
       union select credit_note_id from payment_allocations
              where ${mine()} and allocation_date > ${bind(day)} and credit_note_id is not null
       union select credit_note_id from payment_refunds
              where ${mine()} and refund_date > ${bind(day)} and credit_note_id is not null
       union select i.id from invoices i join journal_entries w on w.id = i.write_off_journal_entry_id
              where i.org_id = ${bind(orgId)} and i.partner_id = ${bind(partner)}
                and i.write_off_journal_entry_id is not null and w.journaldate > ${bind(day)}
       union select a.invoice_id from payments p join payment_allocations a on a.payment_id = p.id
              where p.org_id = ${bind(orgId)} and p.partner_id = ${bind(partner)}
                and p.status = 'voided' and coalesce(p.void_date, p.voided_at::date) > ${bind(day)}
     ),
     cand_pays as (
       select id from payments where ${mine()} and status = 'posted' and amount > allocated + refunded
       union select id from payments
              where ${mine()} and status = 'voided' and coalesce(void_date, voided_at::date) > ${bind(day)}
       union select payment_id from payment_allocations
              where ${mine()} and allocation_date > ${bind(day)} and payment_id is not null
       union select payment_id from payment_refunds
              where ${mine()} and refund_date > ${bind(day)} and payment_id is not null
     ),`;
}

/**
 * The organization's postings to its trade accounts in a scope (HistoryScope), in one statement (so
 * one snapshot, with no transaction to open): the posted documents with their trade line and
 * write-off, the payments with their bank line and void, the allocations and the refunds. An
 * allocation made before allocations recorded their entry (migration 028 gave those made with their
 * payment its entry) is ordered at its source's entry.
 */
export async function loadHistory(db: Knex, orgId: number, scope: HistoryScope = {}): Promise<LedgerHistory> {
  // Each fragment's values, in the order the fragments stand in the statement.
  const candidateValues: Knex.Value[] = [];
  const docValues: Knex.Value[] = [orgId];
  const payValues: Knex.Value[] = [orgId];
  const bind = (values: Knex.Value[], ...more: Knex.Value[]) => (values.push(...more), '?');
  let candidates = '';
  let docScope = 'i.org_id = ?';
  let payScope = 'p.org_id = ?';
  if (scope.partner !== undefined) {
    docScope += ` and i.partner_id = ${bind(docValues, scope.partner)}`;
    payScope += ` and p.partner_id = ${bind(payValues, scope.partner)}`;
  }
  if (scope.openOn !== undefined && scope.partner !== undefined) {
    candidates = partnerCandidates(candidateValues, orgId, scope.partner, scope.openOn);
  } else if (scope.openOn !== undefined) {
    const d = scope.openOn;
    const org = () => bind(candidateValues, orgId);
    const day = () => bind(candidateValues, d);
    candidates = `cand_docs as (
       select id from invoices where org_id = ${org()} and invoicestatus = 'open'
       union select invoice_id from payment_allocations where org_id = ${org()} and allocation_date > ${day()}
       union select credit_note_id from payment_allocations
              where org_id = ${org()} and allocation_date > ${day()} and credit_note_id is not null
       union select a.invoice_id from payments p join payment_allocations a on a.payment_id = p.id
              where p.org_id = ${org()} and p.status = 'voided' and coalesce(p.void_date, p.voided_at::date) > ${day()}
       union select credit_note_id from payment_refunds
              where org_id = ${org()} and refund_date > ${day()} and credit_note_id is not null
       union select invoice_id from journal_entries
              where org_id = ${org()} and kind in ('write_off', 'invoice') and journaldate > ${day()}
     ),
     cand_pays as (
       select id from payments where org_id = ${org()} and status = 'posted' and amount > allocated + refunded
       union select payment_id from payment_allocations
              where org_id = ${org()} and allocation_date > ${day()} and payment_id is not null
       union select id from payments
              where org_id = ${org()} and status = 'voided' and coalesce(void_date, voided_at::date) > ${day()}
       union select payment_id from payment_refunds
              where org_id = ${org()} and refund_date > ${day()} and payment_id is not null
     ),`;
  }
  if (scope.openOn !== undefined) {
    docScope += ' and i.id = any(array(select id from cand_docs))';
    // The payments that settled an open document come with it: a void of theirs reopened it.
    payScope += ` and p.id = any(array(select id from cand_pays
                                      union select payment_id from payment_allocations
                                       where invoice_id = any(array(select id from cand_docs))))`;
  }
  const allocationSelect = `select a.id, a.payment_id, a.credit_note_id, a.invoice_id, a.amount::text as amount,
              a.allocation_date::text as date,
              coalesce(a.journal_entry_id, p.journal_entry_id,
                       (select min(e.id) from journal_entries e where e.invoice_id = a.credit_note_id and e.kind = 'invoice')) as seq,
              a.status = 'voided' as voided
         from payment_allocations a left join payments p on p.id = a.payment_id`;
  const refundSelect = `select r.id, r.payment_id, r.credit_note_id, r.amount::text as amount, r.accounting_amount::text as accounting_amount,
              r.refund_date::text as date, r.journal_entry_id as seq
         from payment_refunds r`;
  const { rows } = await db.raw<{ rows: Array<{ history: LedgerHistory }> }>(
    `with ${candidates}
     docs as (
       select i.id, i.invoicenumber, i.invoicetype, i.partner_id, e.journaldate::text as date, i.invoicedue::text as invoicedue,
              i.invoicetotal::text as total, i.currency, e.id as seq,
              -- What the posting path values it at (payments/payment.repository.ts bookedDocuments).
              case when i.exchange_rate is null then i.invoicetotal
                   else coalesce((select sum(l.debit + l.credit) from journal_entries ie join journal_lines l on l.entry_id = ie.id
                                   where ie.invoice_id = i.id and ie.kind = 'invoice' and l.label in ('Receivable', 'Payable')), 0)
              end::text as booked,
              case when w.id is not null and i.written_off_amount > 0
                   then json_build_object('amount', i.written_off_amount::text, 'date', w.journaldate::text, 'seq', w.id) end as write_off
         from invoices i
         join lateral (select id, journaldate from journal_entries
                        where invoice_id = i.id and kind = 'invoice' order by id limit 1) e on true
         left join journal_entries w on w.id = i.write_off_journal_entry_id
        where ${docScope}
     ),
     pays as (
       select p.id, p.partner_id, p.direction, p.amount::text as amount, p.currency, p.payment_date::text as date, p.reference,
              p.accounting_amount::text as accounting_amount, p.journal_entry_id as seq,
              case when p.status = 'voided' then json_build_object(
                'date', coalesce(p.void_date, p.voided_at::date)::text, 'seq', coalesce(p.void_journal_entry_id, p.journal_entry_id)) end as void,
              (select i.invoicetype from payment_allocations a join invoices i on i.id = a.invoice_id
                where a.payment_id = p.id order by a.id limit 1) as settled_type
         from payments p
        where ${payScope}
     ),
     allocs as (
       ${allocationSelect} where a.invoice_id = any(array(select id from docs))
       union ${allocationSelect} where a.credit_note_id = any(array(select id from docs))
       union ${allocationSelect} where a.payment_id = any(array(select id from pays))
     ),
     refs as (
       ${refundSelect} where r.payment_id = any(array(select id from pays))
       union ${refundSelect} where r.credit_note_id = any(array(select id from docs))
     )
     select json_build_object(
       'documents', coalesce((select json_agg(docs) from docs), '[]'),
       'payments', coalesce((select json_agg(pays) from pays), '[]'),
       'allocations', coalesce((select json_agg(allocs) from allocs), '[]'),
       'refunds', coalesce((select json_agg(refs) from refs), '[]')) as history`,
    [...candidateValues, ...docValues, ...payValues],
  );
  return (rows[0] as { history: LedgerHistory }).history;
}
