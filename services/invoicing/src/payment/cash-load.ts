import { HELD_SETTINGS_CTE } from '@bo/billing';
import type { PaymentRow } from './payment.record';

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
