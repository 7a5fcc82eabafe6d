import type { invoicing, RequestOf } from '@bo/contracts';
import { formatDateTimeSql, parseCreditorReference } from '@bo/kernel';
import {
  isUniqueViolation,
  likeContains,
  nextNumberCtes,
  nextNumberSteps,
  NumberRace,
  numberedRows,
  pendingNumber,
  selectPage,
  type Knex,
  type OneStatementWrite,
  type PageRequest,
  type StorePart,
} from '@bo/runtime';
import { nowIn } from '@bo/billing';
import { addDays } from '../domain/recurrence';
import type { NewInvoiceDrawn, NewInvoicePlan } from './decide-new-invoice';
import type { InvoiceRow, LineRow } from './invoice.record';
import { invoiceRefusals } from './invoice-refusals';

/**
 * Where paying an invoice stands (`payment_state`, docs/invoicing.md "Payment state"), the one copy
 * of the rule, read in the statement that reads the invoice (`alias` names it): written off, paid
 * (its status), else `in_payment` while a transfer of an open payment file names it (the partial
 * unique index `payment_file_bills_open` answers that), else `partial` when something is paid, else
 * `not_paid`. A transfer ahead of what was paid wins over `partial`: the rest is on its way.
 */
export function paymentStateSql(alias: string): string {
  return `case when ${alias}.invoicestatus = 'written_off' then 'written_off'
    when ${alias}.invoicestatus = 'paid' then 'paid'
    when exists (select 1 from payment_file_bills pfb
                  where pfb.org_id = ${alias}.org_id and pfb.invoice_id = ${alias}.id and pfb.status = 'in_payment') then 'in_payment'
    when ${alias}.amount_paid <> 0 then 'partial'
    else 'not_paid' end`;
}

/** An invoice as a read answers it: its row and where paying it stands. */
export type InvoiceReadRow = InvoiceRow & { payment_state: invoicing.PaymentState };

/** One invoice of the organization with its payment state, for a read; another organization's is not found. */
export async function readInvoice(db: Knex, orgId: number, id: number): Promise<InvoiceReadRow> {
  const row = (await db('invoices as i')
    .where({ 'i.org_id': orgId, 'i.id': id })
    .select('i.*', db.raw(`${paymentStateSql('i')} as payment_state`))
    .first()) as InvoiceReadRow | undefined;
  if (!row) throw invoiceRefusals.invoiceNotFound(id);
  return row;
}

/** One invoice of the organization, optionally locked; another organization's invoice is not found. */
export async function findInvoice(db: Knex, orgId: number, id: number, opts: { lock?: boolean } = {}): Promise<InvoiceRow> {
  const query = db<InvoiceRow>('invoices').where({ org_id: orgId, id }).first();
  const row = await (opts.lock ? query.forUpdate() : query);
  if (!row) throw invoiceRefusals.invoiceNotFound(id);
  return row;
}

/** One invoice of the organization, or undefined: another organization's is none. */
export async function findInvoiceIfAny(db: Knex, orgId: number, id: number): Promise<InvoiceRow | undefined> {
  return db<InvoiceRow>('invoices').where({ org_id: orgId, id }).first();
}

/** The invoice a quotation was converted into (`converted_from_quotation_id`), if it was, with its payment state. */
/** SQL of the id of the invoice the quotation was converted to (null: none), for a read that takes it beside its own (readDocumentParty). */
export function conversionIdOf(orgId: number, quotationId: number): { sql: string; bindings: Knex.RawBinding[] } {
  return {
    sql: '(select i.id from invoices i where i.org_id = ?::int and i.converted_from_quotation_id = ?::int)',
    bindings: [orgId, quotationId],
  };
}

export async function findConversionOf(db: Knex, orgId: number, quotationId: number): Promise<InvoiceReadRow | undefined> {
  return (await db('invoices as i')
    .where({ 'i.org_id': orgId, 'i.converted_from_quotation_id': quotationId })
    .select('i.*', db.raw(`${paymentStateSql('i')} as payment_state`))
    .first()) as InvoiceReadRow | undefined;
}

/**
 * The customer invoice of the organization a payment reference names (as typed or printed: spaces
 * and lower case are fine), or null when the text is no valid creditor reference or names none of
 * its invoices. Bank reconciliation matches statement lines by it.
 */
export async function findInvoiceByPaymentReference(
  db: Knex,
  orgId: number,
  text: string,
  opts: { lock?: boolean } = {},
): Promise<InvoiceRow | null> {
  const reference = parseCreditorReference(text);
  if (reference === null) return null;
  const query = db<InvoiceRow>('invoices').where({ org_id: orgId, payment_reference: reference }).first();
  return (await (opts.lock ? query.forUpdate() : query)) ?? null;
}

/** One consistent view for a reply that reads several statements: totals with their payments, a page with its count. */
export function inSnapshot<T>(db: Knex, read: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return db.transaction(read, { isolationLevel: 'repeatable read', readOnly: true });
}

export async function linesOf(db: Knex, invoiceIds: number[]): Promise<Map<number, LineRow[]>> {
  const byInvoice = new Map<number, LineRow[]>(invoiceIds.map((id) => [id, []]));
  if (invoiceIds.length === 0) return byInvoice;
  const rows = await db<LineRow>('invoice_lines').whereIn('invoice_id', invoiceIds).orderBy('id');
  for (const r of rows) byInvoice.get(r.invoice_id)?.push(r);
  return byInvoice;
}

export async function isNumberTaken(db: Knex, orgId: number, invoicenumber: string): Promise<boolean> {
  return !!(await db('invoices').select('id').where({ org_id: orgId, invoicenumber }).first());
}

export async function countLines(db: Knex, invoiceId: number): Promise<number> {
  const rows = await db('invoice_lines').where({ invoice_id: invoiceId }).count<{ count: number }[]>({ count: '*' });
  return Number(rows[0]?.count ?? 0);
}

/** What storeNewInvoice answers: the invoice and its lines as stored, or why nothing was. */
export type StoredNewInvoice =
  { stored: true; row: InvoiceRow; lines: LineRow[]; numberTaken: boolean } | { stored: false; fenced: boolean; suppliedTaken: boolean };

/**
 * Stores a decided invoice in one statement: the partner's delete fence checked (when `fencedPartner`
 * is given: partner_fenced takes its lock shared until the commit), a supplied number checked free,
 * else the next number of the plan's series taken (nextNumberCtes: the counter stays locked until
 * the commit, so the caller's next statement should be its last), the invoice and its lines
 * inserted. Columns go in as JSON populated into the tables' row types, so the text of the statement
 * depends only on which columns are given. When the series' next number was typed by hand into
 * another invoice (`numberTaken`), the invoice is stored with a pending number for numberDocument.
 */
export async function storeNewInvoice(trx: Knex.Transaction, plan: NewInvoicePlan, fencedPartner?: number): Promise<StoredNewInvoice> {
  const orgId = plan.header.org_id as number;
  const header = { ...plan.header } as Record<string, unknown>;
  // The document's JSON columns come as JSON text (documentTaxColumns); populated as JSON values.
  for (const column of ['allowances_charges', 'tax_breakdown']) {
    if (typeof header[column] === 'string') header[column] = JSON.parse(header[column]) as unknown;
  }
  const columns = Object.keys(header).map(quoted);
  const lineColumns = Object.keys(plan.lines[0] ?? {}).map(quoted);
  const next = nextNumberCtes(
    orgId,
    plan.series,
    { table: 'invoices', column: 'invoicenumber' },
    {
      from: 'fence, held where ?::boolean and not fence.fenced and not held.taken',
    },
  );
  const linesCte = lineColumns.length
    ? `, lines as (
         insert into invoice_lines (invoice_id, ${lineColumns.join(', ')})
         select inv.id, ${lineColumns.map((c) => `l.${c}`).join(', ')}
         from inv, jsonb_populate_recordset(null::invoice_lines, ?::jsonb) with ordinality as l
         order by l.ordinality
         returning *)`
    : '';
  const sql = `with fence as (select case when ?::boolean then partner_fenced(?::int, ?::int) else false end as fenced),
      held as (select exists (select 1 from invoices where org_id = ? and invoicenumber = ?::text) as taken),
      ${next.sql},
      inv as (
        insert into invoices (${columns.join(', ')}, invoicenumber)
        select ${columns.map((c) => `r.${c}`).join(', ')}, coalesce(?::text, (select number from candidate where not taken), ?::text)
        from jsonb_populate_record(null::invoices, ?::jsonb) r, fence, held
        where not fence.fenced and not held.taken
        returning *)${linesCte}
    select fence.fenced, held.taken as supplied_taken, (select taken from candidate) as number_taken,
           null as "~invoice", inv.*, null as "~line", ${lineColumns.length ? 'lines.*' : 'null as "~none"'}
    from fence cross join held left join inv on true ${lineColumns.length ? 'left join lines on true order by lines.id' : ''}`;
  const bindings: Knex.RawBinding[] = [
    fencedPartner !== undefined,
    orgId,
    fencedPartner ?? 0,
    orgId,
    plan.supplied ?? null,
    ...next.bindings.slice(0, 2),
    plan.supplied === undefined,
    ...next.bindings.slice(2),
    plan.supplied ?? null,
    pendingNumber(),
    JSON.stringify(header),
    ...(lineColumns.length ? [JSON.stringify(plan.lines)] : []),
  ];
  let result: { rows: unknown[][]; fields: Array<{ name: string }> };
  try {
    result = await trx.raw<typeof result>(sql, bindings).options({ rowMode: 'array' });
  } catch (err) {
    if (isUniqueViolation(err, 'invoices_org_number'))
      throw plan.supplied === undefined ? new NumberRace(plan.series) : duplicateNumber(plan.supplied);
    throw err;
  }
  const names = result.fields.map((f) => f.name);
  const invoiceAt = names.indexOf('~invoice');
  const lineAt = names.indexOf('~line');
  const first = result.rows[0] as unknown[];
  const pick = <T>(row: unknown[], from: number, to: number) =>
    Object.fromEntries(names.slice(from, to).map((name, i) => [name, row[from + i]])) as T;
  const row = pick<InvoiceRow>(first, invoiceAt + 1, lineAt);
  if (row.id === null) return { stored: false, fenced: first[0] === true, suppliedTaken: first[1] === true };
  return {
    stored: true,
    row,
    lines: lineColumns.length ? result.rows.map((r) => pick<LineRow>(r, lineAt + 1, names.length)) : [],
    numberTaken: first[2] === true,
  };
}

/**
 * SQL of a scalar the read of a new invoice's partner carries (readDocumentParty's `beside`): the ids
 * the invoice and its `lines` lines take, drawn from their sequences, and the time it is made, for
 * the optimistic create (newInvoiceRows). `also`: the caller's own scalar, carried beside them.
 */
export function newInvoiceDraws(
  lines: number,
  also: { sql: string; bindings: Knex.RawBinding[] } = { sql: 'null', bindings: [] },
): { sql: string; bindings: Knex.RawBinding[] } {
  return {
    sql: `json_build_object('invoice_id', nextval(pg_get_serial_sequence('invoices', 'id')),
                            'line_ids', array(select nextval(pg_get_serial_sequence('invoice_lines', 'id')) from ${numberedRows('?::int')} order by n),
                            'now', now(), 'also', ${also.sql})`,
    bindings: [lines, ...also.bindings],
  };
}

/** What newInvoiceDraws drew, as the read answered it; `also`: the caller's scalar. */
export function newInvoiceDrawn(beside: unknown): NewInvoiceDrawn & { also: unknown } {
  const drawn = beside as { invoice_id: number; line_ids: number[]; now: string; also: unknown };
  return { invoiceId: drawn.invoice_id, lineIds: drawn.line_ids, now: new Date(drawn.now), also: drawn.also };
}

/**
 * The optimistic create's store (one-statement.ts): the invoice and its lines as newInvoiceRows gives
 * them, every column written, as parts of one statement with no transaction of its own. In order:
 * the partner's delete fence checked (its lock taken shared; `fencedPartner` null: none checked, as
 * a conversion's invoice checks none), a supplied number looked for, and
 * with no number supplied the series advanced and its number read (nextNumberSteps); then the
 * invoice, only when no fence stands and the number is free, and its lines after it. `expects` holds
 * when the invoice was written; otherwise (a fence, a number taken, by hand or meanwhile) nothing
 * stays and the runtime creates it the usual way, which answers what it finds. The number the
 * series took is filled in where the reply and the event carry `invoicenumber`. `inserted` names the
 * invoice's part, for a caller whose own parts or fills read it.
 */
export function newInvoicePartsAlone(
  plan: NewInvoicePlan,
  stored: { row: InvoiceRow; lines: readonly LineRow[] },
  fencedPartner: number | null,
): { parts: StorePart[]; expects: string; fills?: Array<{ key: string; sql: string }>; inserted: string } {
  const orgId = plan.header.org_id as number;
  const supplied = plan.supplied ?? null;
  const parts: StorePart[] = [
    fencedPartner === null
      ? { sql: 'select false as fenced', bindings: [] }
      : { sql: 'select partner_fenced(?::int, ?::int) as fenced', bindings: [orgId, fencedPartner] },
    { sql: 'select exists (select 1 from invoices where org_id = ? and invoicenumber = ?::text) as taken', bindings: [orgId, supplied] },
  ];
  const free = 'not store1.fenced and not store2.taken';
  let number: { sql: string; bindings: Knex.RawBinding[] } = { sql: '?::text', bindings: [supplied] };
  if (supplied === null) {
    const steps = nextNumberSteps(
      orgId,
      plan.series,
      { table: 'invoices', column: 'invoicenumber' },
      { from: `store1, store2 where ${free}` },
    );
    parts.push(steps.advance, steps.candidate('store3'));
    number = { sql: '(select number from store4 where not taken)', bindings: [] };
  }
  const { invoicenumber: _number, ...row } = stored.row;
  const columns = Object.keys(row).map(quoted);
  const inv = `store${parts.length + 1}`;
  parts.push({
    sql: `insert into invoices (${columns.join(', ')}, invoicenumber)
          select ${columns.map((c) => `r.${c}`).join(', ')}, n.number
            from jsonb_populate_record(null::invoices, ?::jsonb) r, (select ${number.sql} as number) n, store1, store2
           where ${free} and n.number is not null
          returning invoicenumber`,
    bindings: [JSON.stringify(row), ...number.bindings],
  });
  if (stored.lines.length) {
    const lineColumns = Object.keys(stored.lines[0] as object).map(quoted);
    parts.push({
      sql: `insert into invoice_lines (${lineColumns.join(', ')})
            select ${lineColumns.map((c) => `l.${c}`).join(', ')}
              from ${inv}, jsonb_populate_recordset(null::invoice_lines, ?::jsonb) with ordinality as l
             order by l.ordinality`,
      bindings: [JSON.stringify(stored.lines)],
    });
  }
  return {
    parts,
    expects: `(select count(*) from ${inv}) = 1`,
    ...(supplied === null ? { fills: [{ key: 'invoicenumber', sql: `(select to_json(invoicenumber)::text from ${inv})` }] } : {}),
    inserted: inv,
  };
}

/** A column's name quoted as an identifier (names come from the code's own row types). */
function quoted(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export function duplicateNumber(invoicenumber: string) {
  return invoiceRefusals.invoiceNumberTaken(invoicenumber);
}

/** Stores one line of an invoice (its columns: invoice.writer.ts lineColumns); answers it as stored. */
export async function insertLine(trx: Knex.Transaction, columns: Record<string, Knex.Value>): Promise<LineRow> {
  const [row] = (await trx('invoice_lines').insert(columns).returning('*')) as LineRow[];
  return row as LineRow;
}

/** The columns a cancellation writes besides its time: the status, and a running template's recurrence stopped. */
function cancellationColumns(opts: { stopRecurrence: boolean }): Partial<InvoiceRow> {
  return {
    invoicestatus: 'cancelled',
    ...(opts.stopRecurrence
      ? { recurring_status: 'cancelled', recurring_next_run_date: null, recurring_cancellation_reason: 'invoice cancelled' }
      : {}),
  };
}

/** Marks a locked invoice cancelled, stopping its recurrence when it is a running template; answers it as stored. */
export async function markCancelled(trx: Knex.Transaction, invoiceId: number, opts: { stopRecurrence: boolean }): Promise<InvoiceRow> {
  const [row] = (await trx('invoices')
    .where({ id: invoiceId })
    .update({ ...cancellationColumns(opts), cancelled_at: trx.fn.now(), updated_at: trx.fn.now() })
    .returning('*')) as InvoiceRow[];
  return row as InvoiceRow;
}

/**
 * The cancellation markCancelled writes, as one statement that holds only while the invoice is the
 * row read (`read`, its xmin); else nothing. The version the row's trigger gives it and the time it
 * was cancelled, as formatDateTime writes them, are filled in where the event says `version` and
 * `cancelled_at`.
 */
export function cancellationAlone(
  invoiceId: number,
  opts: { stopRecurrence: boolean },
  read: string,
): Pick<OneStatementWrite, 'parts' | 'expects' | 'fills'> {
  const columns = cancellationColumns(opts) as Record<string, Knex.RawBinding>;
  const names = Object.keys(columns);
  return {
    parts: [
      {
        sql: `update invoices set ${names.map((c) => `"${c}" = ?`).join(', ')}, cancelled_at = now(), updated_at = now()
               where id = ? and xmin::text = ?
               returning version, ${formatDateTimeSql('cancelled_at')} as cancelled_at`,
        bindings: [...names.map((c) => columns[c] ?? null), invoiceId, read],
      },
    ],
    expects: '(select count(*) from store1) = 1',
    fills: [
      { key: 'version', sql: '(select version::text from store1)' },
      { key: 'cancelled_at', sql: '(select to_json(cancelled_at)::text from store1)' },
    ],
  };
}

/** An invoice as a change decided on an unlocked read sees it: the row, its version, and the organization's today. */
export interface InvoiceAsRead {
  row: InvoiceRow;
  /** The row's xmin as read, for a change stored only while it is still that row. */
  read: string;
  /** Today in the organization's time zone. */
  today: string;
}

/**
 * One invoice of the organization with its xmin and the organization's today, in one statement;
 * `lock` takes the row's lock. Another organization's, or none, is not found.
 */
export async function readInvoiceAsRead(db: Knex, orgId: number, id: number, opts: { lock?: boolean } = {}): Promise<InvoiceAsRead> {
  const { rows } = await db.raw<{ rows: Array<InvoiceRow & { read_version: string; organization_time_zone: string | null }> }>(
    `select i.*, i.xmin::text as read_version,
            (select s.time_zone from organization_settings s where s.org_id = i.org_id) as organization_time_zone
       from invoices i where i.org_id = ? and i.id = ?${opts.lock ? ' for update of i' : ''}`,
    [orgId, id],
  );
  const found = rows[0];
  if (!found) throw invoiceRefusals.invoiceNotFound(id);
  const { read_version: read, organization_time_zone: zone, ...row } = found;
  return { row, read, today: nowIn(zone).date };
}

/** A journal entry of an invoice as its balances show it. */
export interface InvoiceEntryRow {
  id: number;
  org_id: number;
  invoice_id: number;
  kind: 'invoice' | 'payment';
  journalname: string;
  journaldate: string;
  amount: string;
}

/** The journal entries naming an invoice, in posting order. */
export async function entriesOfInvoice(db: Knex, orgId: number, invoiceId: number): Promise<InvoiceEntryRow[]> {
  return db<InvoiceEntryRow>('journal_entries').where({ org_id: orgId, invoice_id: invoiceId }).orderBy('id');
}

/** An invoice of a list, with its partner's names as the directory holds them. */
export type InvoiceListRow = InvoiceReadRow & { p_partnername: string | null; p_display_name: string | null };

/** What a list of invoices is filtered and sorted by (`invoicing.invoice.list`). */
export type InvoiceListFilter = Pick<
  RequestOf<typeof invoicing.listInvoices>,
  | 'partner_ids'
  | 'status_filter'
  | 'payment_state'
  | 'date_from'
  | 'date_to'
  | 'amount_min'
  | 'amount_max'
  | 'search_key'
  | 'sort_by'
  | 'sort_order'
>;

const SORT_COLUMN = { number: 'i.invoicenumber', date: 'i.invoicedatetime', total: 'i.invoicetotal', due: 'i.invoicedue' } as const;

/** A page of the organization's invoices under the filter, as `today` reads their status, and the total it pages through. */
export async function invoicePage(
  db: Knex,
  orgId: number,
  filter: InvoiceListFilter,
  page: PageRequest,
  today: string,
): Promise<{ rows: InvoiceListRow[]; total: number }> {
  const filtered = db('invoices as i')
    .leftJoin('partner_directory as p', (j) => j.on('p.org_id', 'i.org_id').andOn('p.id', 'i.partner_id'))
    .where('i.org_id', orgId)
    .modify((q: Knex.QueryBuilder) => {
      if (filter.partner_ids?.length) q.whereIn('i.partner_id', filter.partner_ids);
      if (filter.status_filter) whereStatus(q, filter.status_filter, today);
      if (filter.payment_state) q.whereRaw(`(${paymentStateSql('i')}) = ?`, [filter.payment_state]);
      if (filter.date_from) q.where('i.invoicedatetime', '>=', `${filter.date_from}T00:00:00Z`);
      if (filter.date_to) q.where('i.invoicedatetime', '<', `${addDays(filter.date_to, 1)}T00:00:00Z`);
      if (filter.amount_min !== undefined) q.where('i.invoicetotal', '>=', filter.amount_min);
      if (filter.amount_max !== undefined) q.where('i.invoicetotal', '<=', filter.amount_max);
      const search = filter.search_key?.trim();
      if (search) {
        const pattern = likeContains(search);
        q.where((w) => {
          for (const column of ['i.invoicenumber', 'i.sourcenumber', 'p.partnername', 'p.display_name'])
            w.orWhereRaw(`?? ilike ? escape '\\'`, [column, pattern]);
          // A payment reference is found as printed (groups of four) too.
          w.orWhereRaw(`i.payment_reference ilike ? escape '\\'`, [likeContains(search.replace(/ /g, ''))]);
        });
      }
    });
  const direction = filter.sort_order ?? 'desc';
  const sortColumn = SORT_COLUMN[filter.sort_by ?? 'date'];
  return selectPage<InvoiceListRow>(
    filtered.select(
      'i.*',
      db.raw(`${paymentStateSql('i')} as payment_state`),
      'p.partnername as p_partnername',
      'p.display_name as p_display_name',
    ),
    page,
    (q) => q.orderByRaw(`?? ${direction} nulls last, i.id ${direction}`, [sortColumn]),
  );
}

/** `overdue` is not stored: it is an open invoice whose due date has passed, so `open` excludes those. */
function whereStatus(q: Knex.QueryBuilder, status: invoicing.InvoiceStatus, today: string): void {
  if (status === 'overdue') {
    q.where('i.invoicestatus', 'open').where('i.invoicedue', '<', today);
  } else if (status === 'open') {
    q.where('i.invoicestatus', 'open').where((w) => {
      w.whereNull('i.invoicedue').orWhere('i.invoicedue', '>=', today);
    });
  } else {
    q.where('i.invoicestatus', status);
  }
}
