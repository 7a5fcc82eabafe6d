import { exactJson, storeWithCommit, type Knex, type OneStatementWrite, type StorePart } from '@bo/runtime';
import type { AddLinePlan, AddLineState } from './decide-add-line';
import type { InvoiceRow, LineRow } from './invoice.record';
import { invoiceRefusals } from './invoice-refusals';

/**
 * What adding a line decides on, in one statement: the organization's invoice with its xmin as read
 * (`read`), its lines in order, and the organization's settings; `lock` takes the invoice's lock. The
 * lines are read in the statement's snapshot, which predates a wait for the lock: when the locked row
 * is newer than the one the snapshot sees (every write of a draft's lines updates the draft), the
 * statement is read again, now holding the lock. Locked, it draws the new line's id too
 * (storeAddedLine). Another organization's invoice, or none, is not found.
 */
export async function loadAddLine(
  db: Knex,
  orgId: number,
  id: number,
  opts: { lock?: boolean } = {},
): Promise<AddLineState & { read: string; drawnLineId: number | null }> {
  const { rows } = await db.raw<{ rows: LoadedRow[] }>(
    `select i.*, i.xmin::text as read_version, (select s.xmin::text from invoices s where s.id = i.id) as seen_version,
            ${opts.lock ? "nextval(pg_get_serial_sequence('invoice_lines', 'id'))::int" : 'null::int'} as drawn_line_id,
            coalesce((select jsonb_agg(${exactJson('l', ['id', 'org_id', 'invoice_id'])} order by l.id)
                        from invoice_lines l where l.invoice_id = i.id), '[]') as invoice_lines,
            (select ${exactJson('s', ['org_id', 'version', 'books_version'])} from organization_settings s where s.org_id = i.org_id) as settings
       from invoices i where i.org_id = ? and i.id = ?${opts.lock ? ' for update of i' : ''}`,
    [orgId, id],
  );
  const found = rows[0];
  if (!found) throw invoiceRefusals.invoiceNotFound(id);
  const { read_version: read, seen_version: seen, drawn_line_id: drawnLineId, invoice_lines: lines, settings, ...invoice } = found;
  if (opts.lock && read !== seen) return loadAddLine(db, orgId, id, opts);
  return { invoice, lines, settings: settings ?? undefined, read, drawnLineId };
}

type LoadedRow = InvoiceRow & {
  read_version: string;
  seen_version: string;
  drawn_line_id: number | null;
  invoice_lines: LineRow[];
  settings: AddLineState['settings'] | null;
};

/** The invoice's new tax columns and total, written only while it is the row read (`read`), when given. */
function headerPart(plan: AddLinePlan, read?: string): StorePart {
  const columns = Object.keys(plan.header) as Array<keyof AddLinePlan['header']>;
  return {
    sql: `update invoices set ${columns.map((c) => `"${c}" = ?`).join(', ')}, updated_at = now()
           where id = ?${read === undefined ? '' : ' and xmin::text = ? returning id'}`,
    bindings: [...columns.map((c) => plan.header[c] as Knex.RawBinding), plan.line.invoice_id, ...(read === undefined ? [] : [read])],
  };
}

/** The new line under `id` (SQL: the id drawn, or a binding). */
function linePart(plan: AddLinePlan, id: { sql: string; bindings: Knex.RawBinding[] }): StorePart {
  const columns = Object.keys(plan.line) as Array<keyof AddLinePlan['line']>;
  return {
    sql: `insert into invoice_lines (id, ${columns.map(() => '??').join(', ')}) values (${id.sql}, ${columns.map(() => '?').join(', ')})`,
    bindings: [...id.bindings, ...columns, ...columns.map((c) => plan.line[c] as Knex.RawBinding)],
  };
}

/** The amounts of the lines already there that the calculation moved (storeTaxes writes the same). */
export function lineAmountsPart(changed: AddLinePlan['changed']): StorePart[] {
  if (!changed.length) return [];
  const values = changed.map(() => '(?::int, ?, ?::numeric, ?::numeric, ?::numeric)').join(', ');
  return [
    {
      sql: `update invoice_lines l set tax_category = v.tax_category, subtotal = v.subtotal, tax_amount = v.tax_amount, total = v.total
              from (values ${values}) as v(id, tax_category, subtotal, tax_amount, total) where l.id = v.id`,
      bindings: changed.flatMap(({ id, columns }) => [id, columns.tax_category, columns.subtotal, columns.tax_amount, columns.total]),
    },
  ];
}

/**
 * The line added as one statement decided on an unlocked read (one-statement.ts): the invoice's
 * figures written only while it is the row read (`store1`), the line under an id the statement draws,
 * the other lines' amounts. `expects` holds when the invoice was written: otherwise nothing of the
 * statement stays, and the runtime adds the line under the invoice's lock.
 */
export function addLineAlone(plan: AddLinePlan, read: string): Pick<OneStatementWrite, 'parts' | 'expects' | 'draws'> {
  return {
    draws: { table: 'invoice_lines', column: 'id', key: 'id' },
    parts: [headerPart(plan, read), linePart(plan, { sql: '(select id from drawn)', bindings: [] }), ...lineAmountsPart(plan.changed)],
    expects: '(select count(*) from store1) = 1',
  };
}

/** The same under the invoice's lock, with the statement that commits (storeWithCommit), the line under the id its load drew. */
export async function storeAddedLine(trx: Knex.Transaction, plan: AddLinePlan, lineId: number): Promise<void> {
  await storeWithCommit(trx, [headerPart(plan), linePart(plan, { sql: '?::int', bindings: [lineId] }), ...lineAmountsPart(plan.changed)]);
}
