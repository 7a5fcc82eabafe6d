import type { invoicing } from '@bo/contracts';
import { dec, formatDate, formatDateTime, toNumber, type Dec, type DecimalLike } from '@bo/kernel';
import { notFound, validationFailed, AppError, type Knex } from '@bo/runtime';
import { accountsFor, tradeMove, type JournalLine } from '../domain/journal';
import {
  allocationLines,
  defaultTradeAccount,
  dueOfDocument,
  statusAfterSettlement,
  unallocatedOf,
  unconverted,
  valueOfStep,
  type BookedValue,
  type Refusal,
} from '../domain/cash';
import { entryCtes, journalAmount, postEntry, type EntryHeader } from '../invoice/journal.repository';
import { dueOf, statusOf, type InvoiceRow } from '../invoice/invoice.record';

/**
 * Posts a payment's journal entry and inserts the payment, each naming the other, in one statement,
 * with the one allocation a `register_payment` makes (posted by that entry, which it names); answers the stored payment (its
 * `journal_entry_id` the entry's). Both ids are drawn from their sequences first, so neither row is
 * written twice. Every payment is written this way, so no entry is left naming none.
 */
export async function postPayment(
  trx: Knex.Transaction,
  entry: Omit<EntryHeader, 'payment_id'>,
  lines: JournalLine[],
  row: Record<string, Knex.Value>,
  allocation?: { org_id: number; invoice_id: number; amount: DecimalLike; allocation_date: string; operation_key: string | null },
): Promise<PaymentRow> {
  const ctes = entryCtes(entry, lines, { id: '(select entry_id from ids)', payment_id: '(select payment_id from ids)' });
  const payment = trx('payments')
    .insert({ ...row, id: trx.raw('(select payment_id from ids)'), journal_entry_id: trx.raw('(select entry_id from ids)') })
    .returning('*')
    .toSQL();
  const allocated = allocation
    ? `, allocated as (insert into payment_allocations (payment_id, org_id, invoice_id, amount, allocation_date, operation_key, journal_entry_id)
         select payment.id, ?::int, ?::int, ?::numeric, ?::date, ?, payment.journal_entry_id from payment)`
    : '';
  const { rows } = await trx.raw<{ rows: PaymentRow[] }>(
    `with ids as (select nextval(pg_get_serial_sequence('journal_entries', 'id'))::int as entry_id,
                         nextval(pg_get_serial_sequence('payments', 'id'))::int as payment_id),
          ${ctes.sql},
          payment as (${payment.sql})${allocated}
     select * from payment`,
    [
      ...ctes.bindings,
      ...(payment.bindings as Knex.Value[]),
      ...(allocation
        ? [allocation.org_id, allocation.invoice_id, String(allocation.amount), allocation.allocation_date, allocation.operation_key]
        : []),
    ],
  );
  return rows[0] as PaymentRow;
}

export interface PaymentRow {
  id: number;
  org_id: number;
  invoice_id: number | null;
  partner_id: number;
  direction: invoicing.PaymentDirection;
  amount: string;
  currency: string | null;
  payment_date: string;
  method: string | null;
  reference: string | null;
  journal: string;
  status: 'posted' | 'voided';
  /** The rate it was posted at (accounting currency per unit); null: posted as it is. */
  exchange_rate: string | null;
  /** Its amount's worth in the accounting currency, as its bank line booked it. */
  accounting_amount: string;
  allocated: string;
  refunded: string;
  journal_entry_id: number;
  void_journal_entry_id: number | null;
  void_reason: string | null;
  voided_at: Date | null;
  created_at: Date;
}

export interface AllocationRow {
  id: number;
  org_id: number;
  payment_id: number | null;
  credit_note_id: number | null;
  invoice_id: number;
  amount: string;
  allocation_date: string;
  status: 'active' | 'voided';
  journal_entry_id: number | null;
}

export interface RefundRow {
  id: number;
  org_id: number;
  partner_id: number;
  payment_id: number | null;
  credit_note_id: number | null;
  direction: invoicing.PaymentDirection;
  amount: string;
  currency: string | null;
  /** The rate its money was paid out at (accounting currency per unit); null: as it is. */
  exchange_rate: string | null;
  /** What the money paid out was worth in the accounting currency: its bank line. */
  accounting_amount: string;
  refund_date: string;
  method: string | null;
  reference: string | null;
  journal: string;
  journal_entry_id: number;
}

export type CashEntryKind = 'payment' | 'allocation' | 'refund' | 'void' | 'write_off';

/**
 * Stores a cash entry (a payment, an allocation's transfer, a refund, a void, a write-off) and its
 * lines: it may name a payment instead of one invoice. An unbalanced entry is a bug and never reaches
 * the books. A payment's entry names `kind` `payment` and its one invoice where it has one, so the
 * invoice's balances show it among its pay journals as before.
 */
export async function postCashEntry(
  trx: Knex.Transaction,
  entry: {
    org_id: number;
    invoice_id: number | null;
    payment_id: number | null;
    kind: CashEntryKind;
    journalname: string;
    journaldate: string;
    reference: string;
  },
  lines: JournalLine[],
): Promise<number> {
  return postEntry(trx, entry, lines);
}

export async function findPayment(db: Knex, orgId: number, id: number, opts: { lock?: boolean } = {}): Promise<PaymentRow> {
  const query = db<PaymentRow>('payments').where({ org_id: orgId, id }).first();
  const row = await (opts.lock ? query.forUpdate() : query);
  if (!row) throw notFound('Payment', id);
  return row;
}

/**
 * The organization's documents of these ids, locked in id order: every cash operation locks its
 * payment first, then its documents in ascending id, so two of them never wait on each other in a
 * circle. Another organization's ids are simply absent.
 */
export async function lockDocuments(trx: Knex.Transaction, orgId: number, ids: readonly number[]): Promise<Map<number, InvoiceRow>> {
  const unique = [...new Set(ids)].sort((a, b) => a - b);
  if (!unique.length) return new Map();
  const rows = await trx<InvoiceRow>('invoices').where({ org_id: orgId }).whereIn('id', unique).orderBy('id').forUpdate();
  return new Map(rows.map((r) => [r.id, r]));
}

/** Refusals as one 400: the first one's code, every one in `errors[]`. */
export function refuse(refusals: Refusal[]): never {
  const [first] = refusals as [Refusal, ...Refusal[]];
  throw new AppError(
    400,
    first.code,
    refusals.map((r) => r.message).join('; '),
    refusals.map((r) => ({ field: r.field, message: r.message })),
  );
}

export function refuseField(field: string, message: string): never {
  throw validationFailed(message, [{ field, message }]);
}

/** Where a source's credit sits: a payment's rest on the default trade account, a credit note's on its own. */
export function sourceAccount(
  source: { kind: 'payment'; direction: invoicing.PaymentDirection } | { kind: 'credit_note'; note: InvoiceRow },
): string {
  return source.kind === 'payment' ? defaultTradeAccount(source.direction) : accountsFor(source.note.invoicetype, source.note).trade;
}

/**
 * Books allocations already judged (domain/cash.ts allocationRefusals) on documents locked by the
 * caller: one row each under the operation's natural key, each document's paid amount and status,
 * and, from a source whose credit sits on the books (`source.account`), an entry of its own (the
 * credit used, the document cleared, the realized exchange difference). Each row names the entry
 * that posted it, so the ledger replays it in posting order (ledger/ledger.ts); one booked from a
 * source on the books answers its entry's trade move (`trade_delta`, for its event).
 */
export async function bookAllocations(
  trx: Knex.Transaction,
  args: {
    orgId: number;
    /**
     * `account`: the trade account the credit sits on, `value` what it is worth and how much of it is
     * used up already; `account` null when the payment's own entry (`postedBy`) posted each part to its
     * document's account.
     */
    source: {
      payment_id: number | null;
      credit_note_id: number | null;
      account: string | null;
      postedBy?: number;
      value?: { item: BookedValue; used: DecimalLike };
      reference: string;
    };
    documents: ReadonlyMap<number, InvoiceRow>;
    /** What each document booked in the accounting currency (`bookedDocuments`). */
    booked: ReadonlyMap<number, BookedValue>;
    requested: ReadonlyArray<{ invoice_id: number; amount: DecimalLike }>;
    date: string;
    journal: string;
    operationKey: string | undefined;
    /** A credit note's settlement of the invoice it credits, made by its validation: at most one per note. */
    settlesCredited?: boolean;
  },
): Promise<BookedAllocation[]> {
  const rows: BookedAllocation[] = [];
  let seq = 0;
  let used = dec(args.source.value?.used ?? 0);
  for (const a of args.requested) {
    const doc = args.documents.get(a.invoice_id) as InvoiceRow;
    const amount = journalAmount(dec(a.amount));
    const settles = doc.invoicetype === 'invoicein' ? 'invoicein' : 'invoiceout';
    let lines: JournalLine[] = [];
    if (args.source.account !== null) {
      const sourceItem = args.source.value?.item ?? unconverted(amount);
      const from = { account: args.source.account, value: valueOfStep(sourceItem, used, used.plus(amount)) };
      used = used.plus(amount);
      const to = { account: accountsFor(doc.invoicetype, doc).trade, value: documentStep(doc, args.booked, amount) };
      lines = allocationLines(settles, from, to);
    }
    const journalEntryId = lines.length
      ? await postCashEntry(
          trx,
          {
            org_id: args.orgId,
            invoice_id: doc.id,
            payment_id: args.source.payment_id,
            kind: 'allocation',
            journalname: args.journal,
            journaldate: args.date,
            reference: `${args.source.reference} → ${doc.invoicenumber}`.slice(0, 64),
          },
          lines,
        )
      : (args.source.postedBy ?? null);
    const [row] = (await trx('payment_allocations')
      .insert({
        org_id: args.orgId,
        payment_id: args.source.payment_id,
        credit_note_id: args.source.credit_note_id,
        invoice_id: doc.id,
        amount,
        allocation_date: args.date,
        journal_entry_id: journalEntryId,
        operation_key: args.operationKey ?? null,
        seq: seq++,
        ...(args.settlesCredited ? { settles_credited: true } : {}),
      })
      .returning('*')) as AllocationRow[];
    rows.push(args.source.account !== null ? { ...(row as AllocationRow), trade_delta: tradeMove(lines) } : (row as AllocationRow));
    await settle(trx, doc, amount, args.documents);
  }
  return rows;
}

/** An allocation as booked: with its own entry's trade move when it posted one (an allocation made by its payment's entry has none). */
export type BookedAllocation = AllocationRow & { trade_delta?: Dec };

/** How much of a document is settled one way or another: paid (allocated, refunded for a credit note) or written off. */
export function settledShare(doc: Pick<InvoiceRow, 'amount_paid' | 'written_off_amount'>): Dec {
  return dec(doc.amount_paid).plus(dec(doc.written_off_amount));
}

/**
 * What settling `amount` more of a document (negative: undoing it) moves its trade account by in the
 * accounting currency: the step of its booked value from what is settled now.
 */
export function documentStep(doc: InvoiceRow, booked: ReadonlyMap<number, BookedValue>, amount: DecimalLike): Dec {
  const from = settledShare(doc);
  return valueOfStep(booked.get(doc.id) ?? unconverted(doc.invoicetotal), from, from.plus(dec(amount)));
}

/**
 * What each validated document booked in the accounting currency for its total: its entry's trade
 * line (the amount due, converted at its rate). A document with no entry is worth its total; one
 * whose entry has no trade line (a cent at a rate of 0.01 is worth 0.00, and zero lines are not
 * posted) is worth 0. `places`: the accounting currency's decimals.
 */
export async function bookedDocuments(db: Knex, docs: Iterable<InvoiceRow>, places: number): Promise<Map<number, BookedValue>> {
  const all = [...docs];
  const booked = new Map<number, BookedValue>(all.map((d) => [d.id, { ...unconverted(d.invoicetotal), places }]));
  // A document posted without converting (no exchange_rate: the accounting currency's own) booked its
  // total as it is; only a converted one needs its entry read.
  const list = all.filter((d) => d.exchange_rate !== null);
  if (!list.length) return booked;
  const rows = await db('journal_entries as e')
    .leftJoin('journal_lines as l', (j) => {
      j.on('l.entry_id', 'e.id').onIn('l.label', ['Receivable', 'Payable']);
    })
    .whereIn(
      'e.invoice_id',
      list.map((d) => d.id),
    )
    .where('e.kind', 'invoice')
    .groupBy('e.invoice_id')
    .select<Array<{ invoice_id: number; booked: string }>>('e.invoice_id', db.raw('coalesce(sum(l.debit + l.credit), 0) as booked'));
  for (const r of rows) {
    const doc = list.find((d) => d.id === r.invoice_id) as InvoiceRow;
    booked.set(r.invoice_id, { amount: doc.invoicetotal, booked: r.booked, places });
  }
  return booked;
}

/** What a payment is worth in the accounting currency, to use its credit up in proportion. */
export function paymentValue(p: Pick<PaymentRow, 'amount' | 'accounting_amount'>, places: number): BookedValue {
  return { amount: p.amount, booked: p.accounting_amount ?? p.amount, places };
}

/** Moves a locked document's paid amount by `amount` (negative to undo) and its status with it; the map keeps the row current. */
export async function settle(
  trx: Knex.Transaction,
  doc: InvoiceRow,
  amount: DecimalLike,
  documents?: ReadonlyMap<number, InvoiceRow>,
): Promise<InvoiceRow> {
  const paid = dec(doc.amount_paid).plus(dec(amount));
  const status = statusAfterSettlement(doc, paid);
  const [row] = (await trx('invoices')
    .where({ id: doc.id })
    .update({
      amount_paid: journalAmount(paid),
      invoicestatus: status,
      paid_at: status === 'paid' ? (doc.paid_at ?? trx.fn.now()) : null,
      updated_at: trx.fn.now(),
    })
    .returning('*')) as InvoiceRow[];
  const updated = row as InvoiceRow;
  (documents as Map<number, InvoiceRow> | undefined)?.set(updated.id, updated);
  return updated;
}

/** A document's cash figures as cash replies show them. */
export function settledView(row: InvoiceRow, today: string): SettledDocument {
  return {
    id: row.id,
    invoicenumber: row.invoicenumber,
    invoicetype: row.invoicetype,
    invoicestatus: statusOf(row, today),
    invoicetotal: toNumber(row.invoicetotal),
    amount_paid: toNumber(row.amount_paid),
    due_amount: dueOf(row),
  };
}
export type SettledDocument = {
  id: number;
  invoicenumber: string;
  invoicetype: invoicing.InvoiceType;
  invoicestatus: invoicing.InvoiceStatus;
  invoicetotal: number;
  amount_paid: number;
  due_amount: number;
};

/** A credit note's unallocated credit: what is neither allocated nor refunded (its due amount). */
export function creditNoteUnallocated(note: InvoiceRow) {
  return dueOfDocument(note);
}

/** Payment records with their allocations and refunds, in the order given. */
export async function paymentRecords(db: Knex, rows: PaymentRow[]): Promise<invoicing.PaymentRecord[]> {
  if (!rows.length) return [];
  const ids = rows.map((r) => r.id);
  const allocations = await db('payment_allocations as a')
    .join('invoices as i', 'i.id', 'a.invoice_id')
    .whereIn('a.payment_id', ids)
    .select<Array<AllocationRow & { invoicenumber: string }>>('a.*', 'i.invoicenumber')
    .orderBy('a.id');
  const refunds = await db<RefundRow>('payment_refunds').whereIn('payment_id', ids).orderBy('id');
  return rows.map((p) => ({
    id: p.id,
    partner: p.partner_id,
    direction: p.direction,
    amount: toNumber(p.amount),
    currency: p.currency,
    payment_date: formatDate(p.payment_date) as string,
    method: p.method,
    reference: p.reference,
    journal: p.journal,
    status: p.status,
    exchange_rate: p.exchange_rate === null ? null : toNumber(p.exchange_rate),
    accounting_amount: toNumber(p.accounting_amount),
    allocated: toNumber(p.allocated),
    refunded: toNumber(p.refunded),
    // A voided payment gives no credit.
    unallocated: p.status === 'voided' ? 0 : toNumber(unallocatedOf(p)),
    journal_entry_id: p.journal_entry_id,
    void_journal_entry_id: p.void_journal_entry_id,
    void_reason: p.void_reason,
    voided_at: formatDateTime(p.voided_at),
    allocations: allocations.filter((a) => a.payment_id === p.id).map(allocationRecord),
    refunds: refunds.filter((r) => r.payment_id === p.id).map(refundRecord),
    created_at: formatDateTime(p.created_at) as string,
  }));
}

export function allocationRecord(a: AllocationRow & { invoicenumber: string }): invoicing.AllocationRecord {
  return {
    id: a.id,
    source: a.payment_id !== null ? 'payment' : 'credit_note',
    payment_id: a.payment_id,
    credit_note_id: a.credit_note_id,
    invoice_id: a.invoice_id,
    invoicenumber: a.invoicenumber,
    amount: toNumber(a.amount),
    allocation_date: formatDate(a.allocation_date) as string,
    status: a.status,
    journal_entry_id: a.journal_entry_id,
  };
}

export function refundRecord(r: RefundRow): invoicing.RefundRecord {
  return {
    id: r.id,
    source: r.payment_id !== null ? 'payment' : 'credit_note',
    payment_id: r.payment_id,
    credit_note_id: r.credit_note_id,
    partner: r.partner_id,
    amount: toNumber(r.amount),
    currency: r.currency,
    exchange_rate: r.exchange_rate === null ? null : toNumber(r.exchange_rate),
    accounting_amount: toNumber(r.accounting_amount),
    refund_date: formatDate(r.refund_date) as string,
    method: r.method,
    reference: r.reference,
    journal: r.journal,
    journal_entry_id: r.journal_entry_id,
  };
}

/** The allocations as their events carry them. */
export function allocationEvents(rows: ReadonlyArray<BookedAllocation>, documents: ReadonlyMap<number, InvoiceRow>) {
  return rows.map((a) => {
    const doc = documents.get(a.invoice_id) as InvoiceRow;
    return {
      allocation_id: a.id,
      invoice_id: a.invoice_id,
      invoicenumber: doc.invoicenumber,
      invoicetype: doc.invoicetype,
      amount: toNumber(a.amount),
      // The documents map holds each row as settled (settle keeps it current).
      invoice_version: doc.version,
      ...(a.trade_delta !== undefined ? { trade_delta: toNumber(a.trade_delta) } : {}),
    };
  });
}
