import { exactJson, storeAt, type Knex, type StoreMoment, type StorePart } from '@bo/runtime';
import {
  HELD_SETTINGS_CTE,
  HELD_SETTINGS_JSON,
  partiesToStore,
  settingsReading,
  type OrganizationSettings,
  type SettingsReading,
} from '@bo/billing';
import type { ValidationDrawn, ValidationEffects } from './decide-validation';
import type { InvoiceRow, LineRow } from './invoice.record';
import { linesOf } from './invoice.repository';
import { entryParts } from './journal.repository';
import { invoiceRefusals } from './invoice-refusals';

/**
 * The CTEs a posting's load begins with (bindings: org, org, invoice id): `held`, the organization's
 * settings read under its settings lock, shared, taken before any other lock; then `locked`, the
 * invoice locked, with `locked_version` and `seen_version` (its xmin as locked and as the statement's
 * snapshot saw it), which differ when the lock was waited for and a commit meanwhile changed the row.
 */
export const SETTINGS_THEN_INVOICE_LOCKED = `with ${HELD_SETTINGS_CTE},
          locked as materialized (
            select i.*, i.xmin::text as locked_version, (select s.xmin::text from invoices s where s.id = i.id) as seen_version
              from invoices i
             where i.org_id = ? and i.id = ? and (select count(*) from held) >= 0
               for update of i)`;

/**
 * The same CTEs read with no lock, for an optimistic posting (a write whose store checks what it
 * read, one-statement.ts): `held`, the settings as they stand; `locked`, the invoice as it stands, its
 * `locked_version` and `seen_version` both its xmin. READ_VERSIONS names what the store checks
 * (postingGuard).
 */
export const SETTINGS_THEN_INVOICE_READ = `with held as materialized (select * from organization_settings where org_id = ?::int),
          locked as materialized (
            select i.*, i.xmin::text as locked_version, i.xmin::text as seen_version
              from invoices i
             where i.org_id = ? and i.id = ?)`;

/** The settings' versions as a load's `held` read them (SETTINGS_THEN_INVOICE_READ), as postingGuard compares them: null when unseen. */
export const READ_SETTINGS_VERSION = `(select h.version || '/' || h.books_version from held h)`;

/**
 * The guard an optimistic posting's store begins with, as its first part (`store1`): the
 * organization's settings held (the settings lock taken shared, before any other lock the statement
 * takes), and whether they are still at the versions the load read (READ_SETTINGS_VERSION). The
 * store's update of each document it read then names `(select unchanged from store1)`, and its row's
 * xmin as read, so it updates nothing when either moved; its `expects` counts the rows it updated.
 */
export function postingGuard(orgId: number, settingsVersion: string | null): StorePart {
  return {
    sql: `select (select h.version || '/' || h.books_version from organization_settings_held(?::int) h) is not distinct from ?::text as unchanged`,
    bindings: [orgId, settingsVersion],
  };
}

/**
 * The draft a validation decides on, in one statement: the organization's settings read held (its
 * settings lock taken shared first, as every posting takes it before any other lock), then the
 * invoice locked, with its lines, and what the store needs drawn (ValidationDrawn). The lines are
 * read in the statement's snapshot, which predates a wait for the invoice's lock: when the locked row
 * is newer than the one the snapshot sees (a write of the draft committed meanwhile, and every write
 * of a draft's lines updates the draft), they are read again. The settings come back as the
 * posting's reading (held), for everything it decides on.
 */
export async function loadDraft(
  trx: Knex.Transaction,
  orgId: number,
  id: number,
): Promise<{ settings: SettingsReading; invoice: InvoiceRow; lines: LineRow[]; drawn: ValidationDrawn }> {
  const { rows } = await trx.raw<{
    rows: Array<
      InvoiceRow & {
        settings_held: OrganizationSettings | null;
        draft_lines: LineRow[];
        waited: boolean;
        drawn_entry_id: number;
        loaded_at: Date;
        next_version: number;
      }
    >;
  }>(
    `${SETTINGS_THEN_INVOICE_LOCKED}
     select ${HELD_SETTINGS_JSON} as settings_held,
            locked.*, locked.locked_version is distinct from locked.seen_version as waited,
            coalesce((select jsonb_agg(${exactJson('l', ['id', 'org_id', 'invoice_id'])} order by l.id)
                        from invoice_lines l where l.invoice_id = locked.id), '[]') as draft_lines,
            nextval(pg_get_serial_sequence('journal_entries', 'id'))::int as drawn_entry_id,
            now() as loaded_at,
            case when locked.version_xact is distinct from pg_current_xact_id() then locked.version + 1 else locked.version end as next_version
       from locked`,
    [orgId, orgId, id],
  );
  const found = rows[0];
  if (!found) throw invoiceRefusals.invoiceNotFound(id);
  const {
    settings_held: settings,
    draft_lines: read,
    waited,
    drawn_entry_id: entryId,
    loaded_at: now,
    next_version: version,
    locked_version: _l,
    seen_version: _s,
    ...invoice
  } = found as typeof found & {
    locked_version: string;
    seen_version: string;
  };
  const lines = waited ? ((await linesOf(trx, [invoice.id])).get(invoice.id) ?? []) : read;
  return { settings: settingsReading(settings, { held: true }), invoice, lines, drawn: { entryId, now, version } };
}

/**
 * Stores a decided validation (decideValidation) as one statement: the journal entry and its lines
 * under the id the load drew, every line's issued figures and what it moves in stock, the parties'
 * logo by its content, and the invoice's issued columns with its new status, stamped now. With the
 * statement that commits (storeWithCommit, the events' outbox rows and the recorded reply joining it
 * there), or at once when the transaction goes on to read or change what it writes (a credit note's
 * settlement of its invoice, an import, a reminder run). The invoice is locked by the caller, and
 * still a draft: the update names it by id.
 */
export async function storeValidation(
  trx: Knex.Transaction,
  invoice: Pick<InvoiceRow, 'id' | 'org_id'>,
  effects: ValidationEffects,
  entryId: number,
  when: StoreMoment,
): Promise<void> {
  const { kept, logo } = partiesToStore(effects.issuedParties);
  const columns: Record<string, Knex.Value> = { ...effects.invoice, issued_parties: JSON.stringify(kept) };
  const names = Object.keys(columns);
  const parts: StorePart[] = [
    ...entryParts(entryId, effects.entry.header, effects.entry.lines),
    {
      sql: `update invoice_lines l
               set tax_category = v.tax_category, subtotal = v.subtotal, tax_amount = v.tax_amount, total = v.total, stocked = v.stocked
              from (values ${effects.lines.map(() => '(?::int, ?, ?::numeric, ?::numeric, ?::numeric, ?::numeric)').join(', ')})
                   as v(id, tax_category, subtotal, tax_amount, total, stocked)
             where l.id = v.id and l.invoice_id = ?`,
      bindings: [...effects.lines.flatMap((l) => [l.id, l.tax_category, l.subtotal, l.tax_amount, l.total, l.stocked]), invoice.id],
    },
    ...(logo
      ? [
          {
            sql: 'insert into document_logos (org_id, sha256, png) values (?, ?, ?) on conflict (org_id, sha256) do nothing',
            bindings: [invoice.org_id, logo.sha256, logo.png],
          },
        ]
      : []),
    {
      sql: `update invoices set ${names.map(() => '?? = ?').join(', ')},
                   validated_at = now(), ${effects.settled ? 'paid_at = now(), ' : ''}updated_at = now()
             where id = ?`,
      bindings: [...names.flatMap((n) => [n, columns[n] as Knex.Value]), invoice.id],
    },
  ];
  await storeAt(trx, parts, when);
}
