import { HELD_SETTINGS_CTE, type OrganizationSettings } from '@bo/billing';
import type { InvoiceRow } from '../invoice/invoice.record';
import type { AllocationRow, PaymentRow, RefundRow } from './payment.record';

/**
 * The pieces a cash operation's load statement is made of, in its two modes (void.repository.ts,
 * refund.repository.ts). `locked`: the settings held (their lock taken shared first, as every posting
 * takes it before any other), the rows locked, each with the version the statement's snapshot saw
 * (`seen`: it differs from the locked row's when the lock was waited for) and the version a change of
 * it in this transaction gives it. `read`: all of it as it stands, with no lock, for an optimistic
 * store that checks the versions read.
 */
export function cashLoadSql(mode: 'locked' | 'read') {
  const locked = mode === 'locked';
  return {
    /** The `held` CTE (binding: the organization). */
    settings: locked ? HELD_SETTINGS_CTE : 'held as materialized (select * from organization_settings where org_id = ?::int)',
    lock: (alias: string) => (locked ? `for update of ${alias}` : ''),
    seen: (table: string, alias: string) =>
      locked ? `(select s.xmin::text from ${table} s where s.id = ${alias}.id)` : `${alias}.xmin::text`,
    /** An invoice `i`'s version once this transaction changes it (the trigger counts one per transaction). */
    nextVersion: locked
      ? 'case when i.version_xact is distinct from pg_current_xact_id() then i.version + 1 else i.version end'
      : 'i.version + 1',
  };
}

/** The integer columns of the rows a load reads as exact JSON (exactJson): the rest of their numbers are numerics, read as text. */
export const PAYMENT_INTS = ['id', 'org_id', 'invoice_id', 'partner_id', 'journal_entry_id', 'void_journal_entry_id'];
export const ALLOCATION_INTS = ['id', 'org_id', 'payment_id', 'credit_note_id', 'invoice_id', 'journal_entry_id', 'seq', 'partner_id'];
export const REFUND_INTS = ['id', 'org_id', 'partner_id', 'payment_id', 'credit_note_id', 'journal_entry_id'];

/** A payment read as exact JSON, as its row: its times come as text. */
export type PaymentJson = Omit<PaymentRow, 'created_at' | 'voided_at'> & { created_at: string; voided_at: string | null };

export function paymentOfJson(json: PaymentJson): PaymentRow {
  return { ...json, created_at: new Date(json.created_at), voided_at: json.voided_at === null ? null : new Date(json.voided_at) };
}

/**
 * A document a cash load's row carries (`docs.*`), with the version its store checks (`locked_version`),
 * the one the statement's snapshot saw (`seen_version`) and the one a change of it gives it; on the one
 * row of a load that found no document, every column null.
 */
type LoadedDocument =
  | (InvoiceRow & { next_version: number; locked_version: string; seen_version: string })
  | { [K in keyof InvoiceRow | 'next_version' | 'locked_version' | 'seen_version']: null };

/**
 * A row of a cash load (allocation, void, refund, new payment): one per document it reads, or one with
 * none. Beside the document, what every load reads once and repeats on each row (the settings held,
 * their version, the load's time), what the document's entry booked, and `Head`: the load's own columns.
 */
export type CashLoadRow<Head> = LoadedDocument &
  Head & {
    settings_held: OrganizationSettings | null;
    settings_version: string | null;
    loaded_at: Date;
    entry_booked: string | null;
  };

/** The columns of a load that reads a payment (allocation, void, refund), and whether it waited for a lock. */
export interface PaymentColumns {
  payment_json: PaymentJson | null;
  payment_version: string | null;
  waited: boolean;
  allocations: Array<AllocationRow & { invoicenumber: string }>;
  refunds: RefundRow[];
}

export const PAYMENT_COLUMNS = ['payment_json', 'payment_version', 'waited', 'allocations', 'refunds'] as const;

/** The columns splitDocuments takes off every row, whatever the load's: CashLoadRow's own, and the document's versions. */
const LOAD_COLUMNS = ['settings_held', 'settings_version', 'loaded_at', 'entry_booked', 'locked_version', 'seen_version'] as const;

type SplitOff<Head extends PropertyKey> = Head | (typeof LOAD_COLUMNS)[number];

/** A document as splitDocuments keeps it: a row that has one, less the columns split off. */
type SplitDocument<Row, Head extends PropertyKey> = Omit<Extract<Row, { id: number }>, SplitOff<Head>>;

/** The row's columns that are neither the document's nor split off: none may be, or they would stay on the documents. */
type Unlisted<Row, Head extends PropertyKey> = Exclude<keyof Row, keyof LoadedDocument | SplitOff<Head>>;

/**
 * A cash load's rows split into its documents, by id in the rows' order, and what each one's entry
 * booked. `head` names the load's own columns (its head, which the caller reads off the first row):
 * they, CashLoadRow's and the document's versions are taken off each row, and the rest of it is the
 * document. The row of a load that found no document (its id null) is skipped.
 */
export function splitDocuments<Row extends CashLoadRow<object>, Head extends readonly (keyof Row)[]>(
  rows: readonly Row[],
  head: Head & ([Unlisted<Row, Head[number]>] extends [never] ? unknown : { unlisted: Unlisted<Row, Head[number]> }),
): { documents: Map<number, SplitDocument<Row, Head[number]>>; booked: Map<number, string | null> } {
  const off = new Set<PropertyKey>([...LOAD_COLUMNS, ...head]);
  const documents = new Map<number, SplitDocument<Row, Head[number]>>();
  const booked = new Map<number, string | null>();
  for (const row of rows) {
    const { id, entry_booked: entryBooked } = row;
    if (id === null) continue;
    const doc = Object.fromEntries(Object.entries(row as Record<string, unknown>).filter(([column]) => !off.has(column)));
    documents.set(id, doc as SplitDocument<Row, Head[number]>);
    booked.set(id, entryBooked);
  }
  return { documents, booked };
}
