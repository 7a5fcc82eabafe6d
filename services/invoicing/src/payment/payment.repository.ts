import type { invoicing } from '@bo/contracts';
import { dec, type DecimalLike } from '@bo/kernel';
import { selectPage, type Knex, type PageRequest, type StorePart } from '@bo/runtime';
import { tradeMove, type JournalLine } from '../domain/journal';
import { statusAfterSettlement, unconverted, type BookedValue } from '../domain/cash';
import { drawnEntriesCtes, entryParts, journalAmount, type EntryHeader } from '../invoice/journal.repository';
import type { InvoiceRow } from '../invoice/invoice.record';
import { toPaymentRecord, type AllocationRow, type BookedAllocation, type PaymentRow, type RefundRow } from './payment.record';
import { planAllocations, type AllocationSource, type AllocationStep } from './plan-allocations';
import { paymentRefusals } from './payment-refusals';

/** The SQL of payments, allocations, refunds, voids and write-offs (their rows and replies: payment.record.ts). */

/**
 * A payment as parts of a store (storeWithCommit) under the ids its load drew: its entry and lines,
 * the payment naming the entry, and the allocations that entry posts. Every payment is written this
 * way, so no entry is left naming none and no payment naming no entry.
 */
export function paymentParts(
  ids: { entryId: number; paymentId: number },
  entry: Omit<EntryHeader, 'payment_id'>,
  lines: JournalLine[],
  row: Record<string, Knex.Value>,
  allocations: ReadonlyArray<{
    /** Drawn by the load when the reply names it; else drawn by the insert. */
    id?: number;
    org_id: number;
    invoice_id: number;
    amount: DecimalLike;
    allocation_date: string;
    operation_key: string | null;
  }>,
): StorePart[] {
  const payment: Record<string, Knex.Value> = { ...row, id: ids.paymentId, journal_entry_id: ids.entryId };
  const columns = Object.keys(payment);
  return [
    ...entryParts(ids.entryId, { ...entry, payment_id: ids.paymentId }, lines),
    {
      sql: `insert into payments (${columns.map(() => '??').join(', ')}) values (${columns.map(() => '?').join(', ')})`,
      bindings: [...columns, ...columns.map((c) => payment[c] as Knex.Value)],
    },
    ...(allocations.length
      ? [
          {
            // `seq`: each allocation's place in the request, from 0.
            sql: `insert into payment_allocations (id, payment_id, org_id, invoice_id, amount, allocation_date, operation_key, journal_entry_id, seq)
                  select coalesce(a.id, nextval(pg_get_serial_sequence('payment_allocations', 'id'))::int), ?::int, a.org_id, a.invoice_id,
                         a.amount, a.allocation_date, a.operation_key, ?::int, a.seq - 1
                    from unnest(?::int[], ?::int[], ?::int[], ?::numeric[], ?::date[], ?::text[])
                         with ordinality as a(id, org_id, invoice_id, amount, allocation_date, operation_key, seq)`,
            bindings: [
              ids.paymentId,
              ids.entryId,
              allocations.map((a) => a.id ?? null) as number[],
              allocations.map((a) => a.org_id),
              allocations.map((a) => a.invoice_id),
              allocations.map((a) => String(a.amount)),
              allocations.map((a) => a.allocation_date),
              allocations.map((a) => a.operation_key) as string[],
            ],
          },
        ]
      : []),
  ];
}

export async function findPayment(db: Knex, orgId: number, id: number, opts: { lock?: boolean } = {}): Promise<PaymentRow> {
  const query = db<PaymentRow>('payments').where({ org_id: orgId, id }).first();
  const row = await (opts.lock ? query.forUpdate() : query);
  if (!row) throw paymentRefusals.paymentNotFound(id);
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

/**
 * Books allocations already judged (domain/cash.ts allocationRefusals) on documents locked by the
 * caller, as planAllocations plans them: one row each under the operation's natural key, each
 * document's paid amount and status, and, from a source whose credit sits on the books
 * (`source.account`), an entry of its own (the credit used, the document cleared, the realized
 * exchange difference). Each row names the entry that posted it, so the ledger replays it in posting
 * order (ledger/ledger.ts); one booked from a source on the books answers its entry's trade move
 * (`trade_delta`, for its event).
 */
export async function bookAllocations(
  trx: Knex.Transaction,
  args: {
    orgId: number;
    source: AllocationSource;
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
  // Planned (planAllocations), then stored: the entries of a source on the books, their lines and the
  // allocation rows in one statement, each document's paid amount and status in one update.
  const { steps, settled } = planAllocations(args);
  if (!steps.length) return [];
  const inserted = await insertAllocations(trx, steps);
  const bySeq = new Map<number, AllocationRow>(inserted.map((r) => [Number(r.seq), r]));
  await settleAll(trx, [...settled.values()], args.documents);
  return steps.map((p, seq) => {
    const row = bySeq.get(seq) as AllocationRow;
    return p.lines !== null ? { ...row, trade_delta: tradeMove(p.lines) } : row;
  });
}

/**
 * Inserts the planned allocations and the entries that post them, in one statement: each entry
 * under an id the statement draws, named by its allocation's `seq`, and every allocation naming its
 * entry (or the source's). Answers the allocation rows as stored.
 */
async function insertAllocations(
  trx: Knex.Transaction,
  planned: readonly AllocationStep[],
): Promise<Array<AllocationRow & { seq: number }>> {
  const entries = planned.flatMap((p) => (p.entry && p.lines?.length ? [{ seq: p.row.seq, entry: p.entry, lines: p.lines }] : []));
  const ctes = entries.length
    ? drawnEntriesCtes(entries)
    : { sql: 'drawn as (select null::int as seq, null::int as id where false)', bindings: [] };
  const { rows } = await trx.raw<{ rows: Array<AllocationRow & { seq: number }> }>(
    `with ${ctes.sql}
     insert into payment_allocations (org_id, payment_id, credit_note_id, invoice_id, amount, allocation_date, journal_entry_id,
                                      operation_key, seq, settles_credited)
     select a.org_id, a.payment_id, a.credit_note_id, a.invoice_id, a.amount, a.allocation_date, coalesce(d.id, a.journal_entry_id),
            a.operation_key, a.seq, a.settles_credited
       from jsonb_to_recordset(?::jsonb) as a(org_id int, payment_id int, credit_note_id int, invoice_id int, amount numeric,
                                              allocation_date date, journal_entry_id int, operation_key text, seq int, settles_credited boolean)
       left join drawn d on d.seq = a.seq
      order by a.seq
     returning *`,
    [...ctes.bindings, JSON.stringify(planned.map((p) => p.row))],
  );
  return rows;
}

/**
 * Stores each locked document's paid amount and status as planned (`amount_paid`, `invoicestatus`
 * already moved), in one statement; a document paid now keeps the first time it was paid. The map
 * gets the rows as stored.
 */
async function settleAll(trx: Knex.Transaction, planned: InvoiceRow[], documents: ReadonlyMap<number, InvoiceRow>): Promise<void> {
  const update = settlementPart(planned);
  const { rows } = await trx.raw<{ rows: InvoiceRow[] }>(`${update.sql} returning i.*`, update.bindings);
  for (const row of rows) (documents as Map<number, InvoiceRow>).set(row.id, row);
}

/**
 * The update that stores each locked document's paid amount and status as planned (`amount_paid`,
 * `invoicestatus` already moved); a document paid now keeps the first time it was paid. `at`: the
 * time written as paid and updated (the load's, as the reply tells it); without it, the
 * transaction's. With `read` (an optimistic store, postingGuard): a document is updated only while
 * its xmin is still the one read and the guard's `store1` found the settings unchanged; it answers
 * the ids updated.
 */
export function settlementPart(
  planned: ReadonlyArray<Pick<InvoiceRow, 'id' | 'amount_paid' | 'invoicestatus'>>,
  options: { at?: Date; read?: ReadonlyMap<number, string> } = {},
): StorePart {
  const at = options.at ? '?::timestamptz' : 'now()';
  const atBindings = options.at ? [options.at, options.at] : [];
  const read = options.read;
  return {
    sql: `update invoices i
             set amount_paid = v.amount_paid, invoicestatus = v.status,
                 paid_at = case when v.status = 'paid' then coalesce(i.paid_at, ${at}) end, updated_at = ${at}
            from unnest(?::int[], ?::numeric[], ?::text[], ?::text[]) as v(id, amount_paid, status, read_version)
           where i.id = v.id${read ? ' and i.xmin::text = v.read_version and (select unchanged from store1) returning i.id' : ''}`,
    bindings: [
      ...atBindings,
      planned.map((d) => d.id),
      planned.map((d) => String(d.amount_paid)),
      planned.map((d) => d.invoicestatus),
      planned.map((d) => read?.get(d.id) ?? null) as string[],
    ],
  };
}

/**
 * What each validated document booked in the accounting currency for its total: its entry's trade
 * line (the amount due, converted at its rate). A document with no entry is worth its total; one
 * whose entry has no trade line (a cent at a rate of 0.01 is worth 0.00, and zero lines are not
 * posted) is worth 0. `places`: the accounting currency's decimals.
 */
export async function bookedDocuments(db: Knex, docs: Iterable<InvoiceRow>, places: number): Promise<Map<number, BookedValue>> {
  const all = [...docs];
  // A document posted without converting (no exchange_rate: the accounting currency's own) booked its
  // total as it is; only a converted one needs its entry read.
  const ids = all.filter((d) => d.exchange_rate !== null).map((d) => d.id);
  const { rows } = ids.length
    ? await db.raw<{ rows: Array<{ invoice_id: number; booked: string }> }>(bookedQuery('e.invoice_id = any(?::int[])'), [ids])
    : { rows: [] };
  const found = new Map(rows.map((r) => [r.invoice_id, r.booked]));
  return new Map(all.map((d) => [d.id, bookedValue(d, found.get(d.id), places)]));
}

/** What the documents `where` names (over entries `e`) booked (bookedDocuments): `invoice_id`, `booked` as text, a row for each document with an entry. */
export function bookedQuery(where: string): string {
  return `select e.invoice_id, coalesce(sum(l.debit + l.credit), 0)::text as booked
            from journal_entries e
            left join journal_lines l on l.entry_id = e.id and l.label in ('Receivable', 'Payable')
           where e.kind = 'invoice' and ${where}
           group by e.invoice_id`;
}

/**
 * SQL of the rate table's rates of a currency against the accounting currency of the load's `held`
 * settings, as JSON `[{ date, rate }]`, over the dates a payment may fall on (decide-registration.ts
 * `rateWindow`): every rate up to the window's last day from the one in force on its first. `org`
 * and `currency` are SQL of the organization and the currency; bindings: the window's last day, then
 * its first.
 */
export function ratesInWindowQuery(org: string, currency: string): string {
  return `(select coalesce(jsonb_agg(jsonb_build_object('date', r.rate_date, 'rate', r.rate::text)), '[]')
             from exchange_rates r join held h on r.accounting_currency = h.default_currency
            where r.org_id = ${org} and r.currency = ${currency} and r.currency <> h.default_currency
              and r.rate_date <= ?::date
              and r.rate_date >= coalesce((select max(x.rate_date) from exchange_rates x
                                            where x.org_id = r.org_id and x.currency = r.currency
                                              and x.accounting_currency = r.accounting_currency and x.rate_date <= ?::date),
                                          '-infinity'::date))`;
}

/** A document's booked value from its entry's reading (bookedQuery; undefined or null: no entry), pure. */
export function bookedValue(
  doc: Pick<InvoiceRow, 'invoicetotal' | 'exchange_rate'>,
  booked: string | null | undefined,
  places: number,
): BookedValue {
  return doc.exchange_rate === null || booked == null
    ? { ...unconverted(doc.invoicetotal), places }
    : { amount: doc.invoicetotal, booked, places };
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
  return rows.map((p) =>
    toPaymentRecord(
      p,
      allocations.filter((a) => a.payment_id === p.id),
      refunds.filter((r) => r.payment_id === p.id),
    ),
  );
}

/** A page of the organization's payments, newest first, under the filters given. */
export async function paymentPage(
  db: Knex,
  orgId: number,
  filter: { partner?: number; direction?: invoicing.PaymentDirection; status?: PaymentRow['status'] },
  page: PageRequest,
): Promise<{ rows: PaymentRow[]; total: number }> {
  const filtered = db('payments').where({ org_id: orgId });
  if (filter.partner !== undefined) void filtered.where({ partner_id: filter.partner });
  if (filter.direction !== undefined) void filtered.where({ direction: filter.direction });
  if (filter.status !== undefined) void filtered.where({ status: filter.status });
  return selectPage<PaymentRow>(filtered.select('*'), page, (q) => q.orderBy('id', 'desc'));
}
