import { storeWithCommit, type Knex, type StorePart } from '@bo/runtime';
import { HELD_SETTINGS_JSON, type OrganizationSettings } from '@bo/billing';
import type { InvoiceRow } from '../invoice/invoice.record';
import { entryParts } from '../invoice/journal.repository';
import {
  postingGuard,
  READ_SETTINGS_VERSION,
  SETTINGS_THEN_INVOICE_LOCKED,
  SETTINGS_THEN_INVOICE_READ,
} from '../invoice/validation.repository';
import type { WriteOffLoad, WriteOffPlan } from './decide-write-off';
import { bookedQuery } from './payment.repository';

/**
 * Everything a write-off decides on, in one statement: the organization's settings read held (its
 * settings lock taken shared first, as every posting takes it before any other lock), then the
 * invoice locked, with what its entry booked, the id of the write-off's entry drawn, and the
 * transaction's timestamp. What the entry booked is read in the statement's snapshot, taken before
 * any wait for the invoice's lock, so when the locked row is newer than the one the snapshot sees (its
 * validation committed meanwhile) it is read again.
 */
export async function loadWriteOff(trx: Knex.Transaction, orgId: number, id: number): Promise<WriteOffLoad> {
  const { rows } = await trx.raw<{ rows: LoadedRow[] }>(writeOffLoad(SETTINGS_THEN_INVOICE_LOCKED), [orgId, orgId, id]);
  const { load, waited } = loadOf(rows[0] as LoadedRow);
  if (!waited || !load.invoice || load.invoice.exchange_rate === null) return load;
  const current = await trx.raw<{ rows: Array<{ booked: string }> }>(bookedQuery('e.invoice_id = ?::int'), [load.invoice.id]);
  return { ...load, booked: current.rows[0]?.booked ?? null };
}

/** The same, read with no lock and no transaction, for the optimistic store (storeWriteOffAlone), with the versions it checks. */
export async function readWriteOff(db: Knex, orgId: number, id: number): Promise<{ load: WriteOffLoad; read: WriteOffRead }> {
  const { rows } = await db.raw<{ rows: LoadedRow[] }>(writeOffLoad(SETTINGS_THEN_INVOICE_READ), [orgId, orgId, id]);
  const row = rows[0] as LoadedRow;
  return { load: loadOf(row).load, read: { settings: row.settings_version, invoice: row.locked_version } };
}

/** What an optimistic write-off read and its store checks: the settings' versions (READ_SETTINGS_VERSION) and the invoice's xmin. */
export interface WriteOffRead {
  settings: string | null;
  invoice: string | null;
}

function writeOffLoad(head: string): string {
  return `${head}
     select ${HELD_SETTINGS_JSON} as settings_held, ${READ_SETTINGS_VERSION} as settings_version,
            case when locked.id is not null then nextval(pg_get_serial_sequence('journal_entries', 'id'))::int end as drawn_entry_id,
            now() as loaded_at,
            locked.locked_version is distinct from locked.seen_version as waited,
            (select b.booked from (${bookedQuery('e.invoice_id = locked.id')}) b where locked.exchange_rate is not null) as entry_booked,
            locked.*
       from (select 1) as one left join locked on true`;
}

function loadOf(row: LoadedRow): { load: WriteOffLoad; waited: boolean } {
  const {
    settings_held: settings,
    settings_version: _version,
    drawn_entry_id: entryId,
    loaded_at: now,
    waited,
    entry_booked: booked,
    locked_version: _locked,
    seen_version: _seen,
    ...invoice
  } = row;
  if (invoice.id === null) return { load: { settings, invoice: null, booked: null, entryId: 0, now }, waited: false };
  return { load: { settings, invoice, booked, entryId: entryId as number, now }, waited: waited === true };
}

type LoadedRow = (InvoiceRow | { [K in keyof InvoiceRow]: null }) & {
  settings_held: OrganizationSettings | null;
  settings_version: string | null;
  drawn_entry_id: number | null;
  loaded_at: Date;
  waited: boolean | null;
  entry_booked: string | null;
  locked_version: string | null;
  seen_version: string | null;
};

/**
 * Stores a decided write-off with the statement that commits (storeWithCommit): its entry and lines
 * under the id the load drew, and the invoice written off; the event's outbox row and the recorded
 * reply join them there.
 */
export async function storeWriteOff(trx: Knex.Transaction, plan: WriteOffPlan): Promise<void> {
  await storeWithCommit(trx, writeOffParts(plan));
}

/**
 * The optimistic store of a write-off decided on an unlocked read (readWriteOff), as the parts of one
 * statement (one-statement.ts): the settings held and checked (postingGuard, `store1`), the invoice
 * written off only while it is still the row read (`store2`), and its entry. `expects` holds when the
 * invoice was written off: otherwise nothing of the statement stays, and the runtime writes it off
 * under the invoice's lock.
 */
export function storeWriteOffAlone(plan: WriteOffPlan, read: WriteOffRead): { parts: StorePart[]; expects: string } {
  return {
    parts: [postingGuard(plan.entry.org_id, read.settings), ...writeOffParts(plan, read.invoice ?? '')],
    expects: '(select count(*) from store2) = 1',
  };
}

/** The invoice written off (only while its xmin is `read`, and the settings unchanged, when given), then its entry. */
function writeOffParts(plan: WriteOffPlan, read?: string): StorePart[] {
  const invoice = plan.invoice;
  return [
    {
      sql: `update invoices
               set invoicestatus = 'written_off', written_off_amount = ?, written_off_at = ?, write_off_reason = ?,
                   write_off_journal_entry_id = ?, updated_at = ?
             where id = ?${read === undefined ? '' : ' and xmin::text = ? and (select unchanged from store1) returning id'}`,
      bindings: [
        invoice.written_off_amount,
        invoice.updated_at,
        plan.reason,
        plan.entryId,
        invoice.updated_at,
        invoice.id,
        ...(read === undefined ? [] : [read]),
      ],
    },
    ...entryParts(plan.entryId, plan.entry, plan.lines),
  ];
}
