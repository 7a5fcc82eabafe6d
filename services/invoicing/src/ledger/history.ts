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
 * A statement's items (HistoryScope with `partner` and `openOn`): the same as the organization's
 * (the items open now, or posted or touched after the day), but read by what the partner did from
 * the day on, not by probing everything it ever had. The candidates come from the partner's
 * allocations and refunds dated after the day (allocations and refunds carry their partner:
 * migration 050), its open items and the few of its documents written off and payments voided, each
 * by an index on (org, partner). The rows themselves are read by a range of an index on (org,
 * partner, date) from the day before on (a day early whatever the time zone: dates run forward, so
 * nearly every candidate is there), keeping the candidates and the documents posted after the day;
 * every other candidate (dated earlier: open before the period, or settled in it) is read by id, so
 * the range decides only how a row is read, never whether. An
 * allocation, a void's allocations and a refund always name items of one partner, so nothing of the
 * partner is left out. Every probe by id is `= any(array(select …))`, not `in (select …)` nor
 * `exists (…)`: PostgreSQL turns those into a hash join over the whole table once the ids are more
 * than a few hundred; an array of ids is probed through the id's index, but one descent per id: the
 * range took a year's statement at a million lines from 70,686 buffers to 22,995
 * (docs/performance.md "Reports at scale").
 */
function partnerRows(orgId: number, partner: number, day: string): ScopeRows {
  const cand = new Sql();
  const mine = (sql: Sql, alias: string) => `${alias}.org_id = ${sql.bind(orgId)} and ${alias}.partner_id = ${sql.bind(partner)}`;
  const after = (sql: Sql) => sql.bind(day);
  cand.text = `cand_docs as (
       select id from invoices i where ${mine(cand, 'i')} and invoicestatus = 'open'
       union select invoice_id from payment_allocations a where ${mine(cand, 'a')} and allocation_date > ${after(cand)}
       union select credit_note_id from payment_allocations a
              where ${mine(cand, 'a')} and allocation_date > ${after(cand)} and credit_note_id is not null
       union select credit_note_id from payment_refunds r
              where ${mine(cand, 'r')} and refund_date > ${after(cand)} and credit_note_id is not null
       union select i.id from invoices i join journal_entries w on w.id = i.write_off_journal_entry_id
              where ${mine(cand, 'i')} and i.write_off_journal_entry_id is not null and w.journaldate > ${after(cand)}
       union select a.invoice_id from payments p join payment_allocations a on a.payment_id = p.id
              where ${mine(cand, 'p')} and p.status = 'voided' and coalesce(p.void_date, p.voided_at::date) > ${after(cand)}
     ),
     cand_pays as (
       select id from payments p where ${mine(cand, 'p')} and status = 'posted' and amount > allocated + refunded
       union select id from payments p
              where ${mine(cand, 'p')} and status = 'voided' and coalesce(void_date, voided_at::date) > ${after(cand)}
       union select payment_id from payment_allocations a
              where ${mine(cand, 'a')} and allocation_date > ${after(cand)} and payment_id is not null
       union select payment_id from payment_refunds r
              where ${mine(cand, 'r')} and refund_date > ${after(cand)} and payment_id is not null
     ),`;
  const docs = new Sql();
  docs.text = `doc_range as (
       select ${DOC_COLUMNS} from invoices i where ${mine(docs, 'i')} and i.invoicedatetime >= ${after(docs)}::date - 1
     ),
     doc_rows as (
       select * from doc_range
       union all select ${DOC_COLUMNS} from invoices i
              where ${mine(docs, 'i')} and i.id = any(array(select id from cand_docs except select id from doc_range))
     ),`;
  const pays = new Sql();
  // The payments that settled one of its documents come with them: a void of theirs reopened it.
  pays.text = `cand_pay_ids as (select id from cand_pays union select payment_id from doc_allocs),
     pay_dated as materialized (
       select ${PAY_COLUMNS} from payments p where ${mine(pays, 'p')} and p.payment_date >= ${after(pays)}::date - 1
     ),
     pay_range as (select * from pay_dated where id in (select id from cand_pay_ids)),
     pay_rows as (
       select * from pay_range
       union all select ${PAY_COLUMNS} from payments p
              where ${mine(pays, 'p')} and p.id = any(array(select id from cand_pay_ids except select id from pay_range))
     ),`;
  const keep = new Sql();
  keep.text = `(e.last_date > ${keep.bind(day)} or i.id in (select id from cand_docs))`;
  return { candidates: cand, docs, keep, pays };
}

/** A fragment of SQL with the values of its placeholders, in order. */
class Sql {
  readonly values: Knex.Value[] = [];
  constructor(public text = '') {}
  bind(v: Knex.Value): string {
    this.values.push(v);
    return '?';
  }
}

/**
 * What a scope reads: `doc_rows` (the documents' rows) and of those, once joined to their entry
 * `e`, the ones it `keep`s, then `pay_rows` (the payments'), each a fragment of a `with` list;
 * `pay_rows` may name `doc_allocs`, the documents' allocations.
 */
interface ScopeRows {
  candidates: Sql;
  docs: Sql;
  keep: Sql;
  pays: Sql;
}

/** The organization's items that can be open at the end of `day` (HistoryScope `openOn`), found over the organization. */
function organizationRows(orgId: number, day: string): ScopeRows {
  const cand = new Sql();
  const org = () => cand.bind(orgId);
  const after = () => cand.bind(day);
  cand.text = `cand_docs as (
       select id from invoices where org_id = ${org()} and invoicestatus = 'open'
       union select invoice_id from payment_allocations where org_id = ${org()} and allocation_date > ${after()}
       union select credit_note_id from payment_allocations
              where org_id = ${org()} and allocation_date > ${after()} and credit_note_id is not null
       union select a.invoice_id from payments p join payment_allocations a on a.payment_id = p.id
              where p.org_id = ${org()} and p.status = 'voided' and coalesce(p.void_date, p.voided_at::date) > ${after()}
       union select credit_note_id from payment_refunds
              where org_id = ${org()} and refund_date > ${after()} and credit_note_id is not null
       union select invoice_id from journal_entries
              where org_id = ${org()} and kind in ('write_off', 'invoice') and journaldate > ${after()}
     ),
     cand_pays as (
       select id from payments where org_id = ${org()} and status = 'posted' and amount > allocated + refunded
       union select payment_id from payment_allocations
              where org_id = ${org()} and allocation_date > ${after()} and payment_id is not null
       union select id from payments
              where org_id = ${org()} and status = 'voided' and coalesce(void_date, voided_at::date) > ${after()}
       union select payment_id from payment_refunds
              where org_id = ${org()} and refund_date > ${after()} and payment_id is not null
     ),`;
  const docs = new Sql();
  docs.text = `doc_rows as (
       select ${DOC_COLUMNS} from invoices i where i.org_id = ${docs.bind(orgId)} and i.id = any(array(select id from cand_docs))
     ),`;
  const pays = new Sql();
  // The payments that settled an open document come with it: a void of theirs reopened it.
  pays.text = `pay_rows as (
       select ${PAY_COLUMNS} from payments p
        where p.org_id = ${pays.bind(orgId)} and p.id = any(array(select id from cand_pays union select payment_id from doc_allocs))
     ),`;
  return { candidates: cand, docs, keep: new Sql('true'), pays };
}

/** All of the organization's items, or all of one partner's. */
function allRows(orgId: number, partner: number | undefined): ScopeRows {
  const rows = (name: string, table: string, alias: string, columns: string) => {
    const sql = new Sql();
    const mine = () => (partner === undefined ? '' : ` and ${alias}.partner_id = ${sql.bind(partner)}`);
    sql.text = `${name} as (select ${columns} from ${table} ${alias} where ${alias}.org_id = ${sql.bind(orgId)}${mine()}),`;
    return sql;
  };
  return {
    candidates: new Sql(),
    docs: rows('doc_rows', 'invoices', 'i', DOC_COLUMNS),
    keep: new Sql('true'),
    pays: rows('pay_rows', 'payments', 'p', PAY_COLUMNS),
  };
}

/** What the history reads of a document and of a payment (the rows its scope picks). */
const DOC_COLUMNS = `i.id, i.invoicenumber, i.invoicetype, i.partner_id, i.invoicedue, i.invoicetotal, i.currency,
       i.exchange_rate, i.written_off_amount, i.write_off_journal_entry_id`;
const PAY_COLUMNS = `p.id, p.partner_id, p.direction, p.amount, p.currency, p.payment_date, p.reference,
       p.accounting_amount, p.journal_entry_id, p.status, p.void_date, p.voided_at, p.void_journal_entry_id`;
const ALLOC_COLUMNS = 'a.id, a.payment_id, a.credit_note_id, a.invoice_id, a.amount, a.allocation_date, a.journal_entry_id, a.status';

/**
 * The organization's postings to its trade accounts in a scope (HistoryScope), in one statement (so
 * one snapshot, with no transaction to open): the posted documents with their trade line and
 * write-off, the payments with their bank line and void, the allocations and the refunds. An
 * allocation made before allocations recorded their entry (migration 028 gave those made with their
 * payment its entry) is ordered at its source's entry. Each scope names its rows (`doc_rows`,
 * `pay_rows`); the rest of the statement reads their postings, each row once: the allocations of
 * the documents (`doc_allocs`, which also bring the payments that settled them), then those of the
 * payments not among them.
 */
export async function loadHistory(db: Knex, orgId: number, scope: HistoryScope = {}): Promise<LedgerHistory> {
  const { candidates, docs, keep, pays } =
    scope.openOn === undefined
      ? allRows(orgId, scope.partner)
      : scope.partner === undefined
        ? organizationRows(orgId, scope.openOn)
        : partnerRows(orgId, scope.partner, scope.openOn);
  const { rows: result } = await db.raw<{ rows: Array<{ history: LedgerHistory }> }>(
    `with ${candidates.text}
     ${docs.text}
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
         from doc_rows i
         join lateral (select id, journaldate, max(journaldate) over () as last_date from journal_entries
                        where invoice_id = i.id and kind = 'invoice' order by id limit 1) e on true
         left join journal_entries w on w.id = i.write_off_journal_entry_id
        where ${keep.text}
     ),
     doc_allocs as (
       select ${ALLOC_COLUMNS} from payment_allocations a
        where a.invoice_id = any(array(select id from docs))
           or a.credit_note_id = any(array(select id from docs where invoicetype in ('creditout', 'creditin')))
     ),
     ${pays.text}
     alloc_rows as (
       select * from doc_allocs
       union select ${ALLOC_COLUMNS} from payment_allocations a where a.payment_id = any(array(select id from pay_rows))
     ),
     -- The first document each payment was allocated to, whose type decides the payment's side.
     first_allocs as (
       select distinct on (a.payment_id) a.payment_id, a.invoice_id from alloc_rows a
        where a.payment_id is not null order by a.payment_id, a.id
     ),
     pays as (
       select p.id, p.partner_id, p.direction, p.amount::text as amount, p.currency, p.payment_date::text as date, p.reference,
              p.accounting_amount::text as accounting_amount, p.journal_entry_id as seq,
              case when p.status = 'voided' then json_build_object(
                'date', coalesce(p.void_date, p.voided_at::date)::text, 'seq', coalesce(p.void_journal_entry_id, p.journal_entry_id)) end as void,
              coalesce(d.invoicetype, (select i.invoicetype from invoices i where i.id = f.invoice_id)) as settled_type
         from pay_rows p
         left join first_allocs f on f.payment_id = p.id
         left join docs d on d.id = f.invoice_id
     ),
     allocs as (
       -- Each subquery runs only when what precedes it is null: the entry is nearly always the allocation's own.
       select a.id, a.payment_id, a.credit_note_id, a.invoice_id, a.amount::text as amount, a.allocation_date::text as date,
              coalesce(a.journal_entry_id, (select p.journal_entry_id from payments p where p.id = a.payment_id),
                       (select min(e.id) from journal_entries e where e.invoice_id = a.credit_note_id and e.kind = 'invoice')) as seq,
              a.status = 'voided' as voided
         from alloc_rows a
     ),
     refs as (
       select r.id, r.payment_id, r.credit_note_id, r.amount::text as amount, r.accounting_amount::text as accounting_amount,
              r.refund_date::text as date, r.journal_entry_id as seq
         from payment_refunds r
        where r.payment_id = any(array(select id from pay_rows))
           or r.credit_note_id = any(array(select id from docs where invoicetype in ('creditout', 'creditin')))
     )
     select json_build_object(
       'documents', coalesce((select json_agg(docs) from docs), '[]'),
       'payments', coalesce((select json_agg(pays) from pays), '[]'),
       'allocations', coalesce((select json_agg(allocs) from allocs), '[]'),
       'refunds', coalesce((select json_agg(refs) from refs), '[]')) as history`,
    [...candidates.values, ...docs.values, ...keep.values, ...pays.values],
  );
  return (result[0] as { history: LedgerHistory }).history;
}
