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
 * posting's reading (held), for everything it decides on. `drawnEntryId`: an entry id drawn before
 * and not used (an optimistic validation's that did not store), so ids follow one another as before.
 */
export async function loadDraft(trx: Knex.Transaction, orgId: number, id: number, drawnEntryId?: number): Promise<LoadedDraft> {
  const nextVersion = 'case when locked.version_xact is distinct from pg_current_xact_id() then locked.version + 1 else locked.version end';
  const { rows } = await trx.raw<{ rows: DraftRow[] }>(draftLoad(SETTINGS_THEN_INVOICE_LOCKED, nextVersion), [
    orgId,
    orgId,
    id,
    drawnEntryId ?? null,
  ]);
  const { draft, waited } = draftOf(rows[0], id, { held: true });
  if (!waited) return draft;
  return { ...draft, lines: (await linesOf(trx, [draft.invoice.id])).get(draft.invoice.id) ?? [] };
}

/**
 * The same, read with no lock and no transaction, for an optimistic validation (validationPartsAlone),
 * with the versions its store checks: the settings' (READ_SETTINGS_VERSION) and the invoice's xmin.
 * The version drawn is one more: the store is a transaction of its own. The settings come back not
 * held: the store holds them, and stores only while they are as read.
 */
export async function readDraft(
  db: Knex,
  orgId: number,
  id: number,
): Promise<LoadedDraft & { read: { settings: string | null; invoice: string } }> {
  const { rows } = await db.raw<{ rows: DraftRow[] }>(draftLoad(SETTINGS_THEN_INVOICE_READ, 'locked.version + 1'), [
    orgId,
    orgId,
    id,
    null,
  ]);
  const { draft } = draftOf(rows[0], id, { held: false });
  const row = rows[0] as DraftRow;
  return { ...draft, read: { settings: row.settings_version, invoice: row.locked_version } };
}

export interface LoadedDraft {
  settings: SettingsReading;
  invoice: InvoiceRow;
  lines: LineRow[];
  drawn: ValidationDrawn;
}

type DraftRow = InvoiceRow & {
  settings_held: OrganizationSettings | null;
  settings_version: string | null;
  draft_lines: LineRow[];
  waited: boolean;
  drawn_entry_id: number;
  loaded_at: Date;
  next_version: number;
  locked_version: string;
  seen_version: string;
};

function draftLoad(head: string, nextVersion: string): string {
  return `${head}
     select ${HELD_SETTINGS_JSON} as settings_held, ${READ_SETTINGS_VERSION} as settings_version,
            locked.*, locked.locked_version is distinct from locked.seen_version as waited,
            coalesce((select jsonb_agg(${exactJson('l', ['id', 'org_id', 'invoice_id'])} order by l.id)
                        from invoice_lines l where l.invoice_id = locked.id), '[]') as draft_lines,
            coalesce(?::int, nextval(pg_get_serial_sequence('journal_entries', 'id'))::int) as drawn_entry_id,
            now() as loaded_at,
            ${nextVersion} as next_version
       from locked`;
}

function draftOf(found: DraftRow | undefined, id: number, reading: { held: boolean }): { draft: LoadedDraft; waited: boolean } {
  if (!found) throw invoiceRefusals.invoiceNotFound(id);
  const {
    settings_held: settings,
    settings_version: _version,
    draft_lines: lines,
    waited,
    drawn_entry_id: entryId,
    loaded_at: now,
    next_version: version,
    locked_version: _l,
    seen_version: _s,
    ...invoice
  } = found;
  return { draft: { settings: settingsReading(settings, reading), invoice, lines, drawn: { entryId, now, version } }, waited };
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
  await storeAt(trx, [invoiceUpdate(invoice, effects, null), ...validationParts(invoice, effects, entryId)], when);
}

/**
 * The optimistic store of a validation decided on an unlocked read (readDraft), as the parts of one
 * statement with no transaction of its own (one-statement.ts): the settings held and checked
 * (postingGuard, `store1`), the invoice's issued columns written only while it is still the row read
 * and stamped at the time it was read (`store2`), then the rest, the lines only once the invoice was
 * (its lock taken first, as the locked way takes it). `expects` holds when the invoice was written:
 * otherwise nothing of the statement stays and the runtime validates under the locks.
 */
export function validationPartsAlone(
  invoice: Pick<InvoiceRow, 'id' | 'org_id'>,
  effects: ValidationEffects,
  drawn: ValidationDrawn,
  read: { settings: string | null; invoice: string },
): { parts: StorePart[]; expects: string } {
  return {
    parts: [
      postingGuard(invoice.org_id, read.settings),
      invoiceUpdate(invoice, effects, { at: drawn.now, xmin: read.invoice }),
      ...validationParts(invoice, effects, drawn.entryId, 'store2'),
    ],
    expects: '(select count(*) from store2) = 1',
  };
}

/**
 * The invoice's issued columns and new status, stamped at `at` (else the transaction's now()); with
 * `xmin`, written only while the row is the one read and the guard's `store1` found the settings
 * unchanged, answering its id.
 */
function invoiceUpdate(invoice: Pick<InvoiceRow, 'id'>, effects: ValidationEffects, guarded: { at: Date; xmin: string } | null): StorePart {
  const { kept } = partiesToStore(effects.issuedParties);
  const columns: Record<string, Knex.Value> = { ...effects.invoice, issued_parties: JSON.stringify(kept) };
  const names = Object.keys(columns);
  const at = guarded ? '?::timestamptz' : 'now()';
  // validated_at, paid_at when settled, updated_at.
  const stamps = effects.settled ? 3 : 2;
  return {
    sql: `update invoices set ${names.map(() => '?? = ?').join(', ')},
                 validated_at = ${at}, ${effects.settled ? `paid_at = ${at}, ` : ''}updated_at = ${at}
           where id = ?${guarded ? ' and xmin::text = ? and (select unchanged from store1) returning id' : ''}`,
    bindings: [
      ...names.flatMap((n) => [n, columns[n] as Knex.Value]),
      ...(guarded ? Array.from({ length: stamps }, () => guarded.at) : []),
      invoice.id,
      ...(guarded ? [guarded.xmin] : []),
    ],
  };
}

/** The entry, the lines' issued figures and the logo; with `after`, the lines only once that part answered its row. */
function validationParts(
  invoice: Pick<InvoiceRow, 'id' | 'org_id'>,
  effects: ValidationEffects,
  entryId: number,
  after?: string,
): StorePart[] {
  const { logo } = partiesToStore(effects.issuedParties);
  return [
    ...entryParts(entryId, effects.entry.header, effects.entry.lines),
    {
      sql: `update invoice_lines l
               set tax_category = v.tax_category, subtotal = v.subtotal, tax_amount = v.tax_amount, total = v.total, stocked = v.stocked
              from (values ${effects.lines.map(() => '(?::int, ?, ?::numeric, ?::numeric, ?::numeric, ?::numeric)').join(', ')})
                   as v(id, tax_category, subtotal, tax_amount, total, stocked)${after ? `, ${after}` : ''}
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
  ];
}
