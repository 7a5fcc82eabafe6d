import { notFound, type Knex } from '@bo/runtime';
import { keepSettingsRead, partiesToStore, type OrganizationSettings } from '@bo/billing';
import type { ValidationEffects } from './decide-validation';
import type { InvoiceRow, LineRow } from './invoice.record';
import { linesOf } from './invoice.repository';
import { entryCtes } from './journal.repository';

/**
 * A row as JSON with its numeric columns as their exact text, as node-postgres reads a numeric;
 * `ints` are the integer columns, which stay numbers.
 */
export function exactJson(alias: string, ints: readonly string[]): string {
  const kept = ints.map((c) => `'${c}'`).join(', ');
  return `(select jsonb_object_agg(e.k, case when jsonb_typeof(e.v) = 'number' and e.k not in (${kept}) then to_jsonb(e.v #>> '{}') else e.v end)
             from jsonb_each(to_jsonb(${alias})) as e(k, v))`;
}

/**
 * The CTEs a posting's load begins with (bindings: org, org, invoice id): `held`, the organization's
 * settings read under its settings lock, shared, taken before any other lock; then `locked`, the
 * invoice locked, with `locked_version` and `seen_version` (its xmin as locked and as the statement's
 * snapshot saw it), which differ when the lock was waited for and a commit meanwhile changed the row.
 */
export const SETTINGS_THEN_INVOICE_LOCKED = `with held as materialized (select * from organization_settings_held(?::int)),
          locked as materialized (
            select i.*, i.xmin::text as locked_version, (select s.xmin::text from invoices s where s.id = i.id) as seen_version
              from invoices i
             where i.org_id = ? and i.id = ? and (select count(*) from held) >= 0
               for update of i)`;

/**
 * The draft a validation decides on, in one statement: the organization's settings read held (its
 * settings lock taken shared first, as every posting takes it before any other lock), then the
 * invoice locked, with its lines. The lines are read in the statement's snapshot, which predates a
 * wait for the invoice's lock: when the locked row is newer than the one the snapshot sees (a write
 * of the draft committed meanwhile, and every write of a draft's lines updates the draft), they are
 * read again. The settings stay read for the rest of the transaction (keepSettingsRead).
 */
export async function loadDraft(trx: Knex.Transaction, orgId: number, id: number): Promise<{ invoice: InvoiceRow; lines: LineRow[] }> {
  const { rows } = await trx.raw<{
    rows: Array<InvoiceRow & { settings_held: OrganizationSettings | null; draft_lines: LineRow[]; waited: boolean }>;
  }>(
    `${SETTINGS_THEN_INVOICE_LOCKED}
     select (select ${exactJson('h', ['org_id', 'version', 'books_version'])} from held h) as settings_held,
            locked.*, locked.locked_version is distinct from locked.seen_version as waited,
            coalesce((select jsonb_agg(${exactJson('l', ['id', 'org_id', 'invoice_id'])} order by l.id)
                        from invoice_lines l where l.invoice_id = locked.id), '[]') as draft_lines
       from locked`,
    [orgId, orgId, id],
  );
  const found = rows[0];
  if (!found) throw notFound('Invoice', id);
  const {
    settings_held: settings,
    draft_lines: read,
    waited,
    locked_version: _l,
    seen_version: _s,
    ...invoice
  } = found as typeof found & {
    locked_version: string;
    seen_version: string;
  };
  keepSettingsRead(trx, orgId, settings ?? undefined, true);
  const lines = waited ? ((await linesOf(trx, [invoice.id])).get(invoice.id) ?? []) : read;
  return { invoice, lines };
}

/**
 * Stores a decided validation (decideValidation) in one statement: the journal entry and its lines,
 * every line's issued figures and what it moves in stock, the parties' logo by its content, and the
 * invoice's issued columns with its new status, stamped now. Answers the posted invoice and its
 * entry's id. The invoice is locked by the caller, and still a draft: the update names it by id.
 */
export async function storeValidation(
  trx: Knex.Transaction,
  invoice: Pick<InvoiceRow, 'id' | 'org_id'>,
  effects: ValidationEffects,
): Promise<{ row: InvoiceRow; journalEntryId: number }> {
  const entry = entryCtes(effects.entry.header, effects.entry.lines);
  const { kept, logo } = partiesToStore(effects.issuedParties);
  const lineValues = effects.lines.map(() => '(?::int, ?, ?::numeric, ?::numeric, ?::numeric, ?::numeric)').join(', ');
  const columns: Record<string, Knex.Value> = { ...effects.invoice, issued_parties: JSON.stringify(kept) };
  const names = Object.keys(columns);
  const { rows } = await trx.raw<{ rows: Array<InvoiceRow & { journal_entry_id: number }> }>(
    `with ${entry.sql},
       stored_lines as (
         update invoice_lines l
            set tax_category = v.tax_category, subtotal = v.subtotal, tax_amount = v.tax_amount, total = v.total, stocked = v.stocked
           from (values ${lineValues}) as v(id, tax_category, subtotal, tax_amount, total, stocked)
          where l.id = v.id and l.invoice_id = ?)
       ${logo ? ', logo as (insert into document_logos (org_id, sha256, png) values (?, ?, ?) on conflict (org_id, sha256) do nothing)' : ''}
     update invoices set ${names.map(() => '?? = ?').join(', ')},
            validated_at = now(), ${effects.settled ? 'paid_at = now(), ' : ''}updated_at = now()
      where id = ?
     returning invoices.*, (select id from entry) as journal_entry_id`,
    [
      ...entry.bindings,
      ...effects.lines.flatMap((l) => [l.id, l.tax_category, l.subtotal, l.tax_amount, l.total, l.stocked]),
      invoice.id,
      ...(logo ? [invoice.org_id, logo.sha256, logo.png] : []),
      ...names.flatMap((n) => [n, columns[n] as Knex.Value]),
      invoice.id,
    ],
  );
  const { journal_entry_id: journalEntryId, ...row } = rows[0] as InvoiceRow & { journal_entry_id: number };
  return { row: row, journalEntryId };
}
