import { storeWithCommit, type Knex, type StorePart } from '@bo/runtime';
import { HELD_SETTINGS_JSON, type OrganizationSettings } from '@bo/billing';
import { bookedQuery, paymentParts, ratesInWindowQuery, settlementPart } from '../payment/payment.repository';
import type { PaymentRegistrationPlan, PaymentRegistrationState } from './decide-registration';
import type { InvoiceRow } from './invoice.record';
import { postingGuard, READ_SETTINGS_VERSION, SETTINGS_THEN_INVOICE_LOCKED, SETTINGS_THEN_INVOICE_READ } from './validation.repository';

/**
 * Everything registering a payment decides on, in one statement: the organization's settings read
 * held (its settings lock taken shared first, as every posting takes it before any other lock), then
 * the invoice locked, with what its entry booked, the rate table's rates of its currency in `rateDates`
 * (decide-registration.ts `rateWindow`), the ids of the payment and its entry drawn, and the
 * transaction's timestamp, which the store's `now()` writes too. The invoice's own row is the one
 * locked, however long the lock took; what its entry booked is read in the statement's snapshot,
 * taken before that wait, so when the locked row is newer than the one the snapshot sees (its
 * validation committed meanwhile) it is read again. The settings read held are the registration's
 * only reading of them (`settings`).
 */
export async function loadRegistration(
  trx: Knex.Transaction,
  orgId: number,
  id: number,
  rateDates: { from: string; to: string },
): Promise<PaymentRegistrationState> {
  const { rows } = await trx.raw<{ rows: LoadedRow[] }>(registrationLoad(SETTINGS_THEN_INVOICE_LOCKED), [
    orgId,
    orgId,
    id,
    rateDates.to,
    rateDates.from,
  ]);
  const { state, waited } = stateOf(rows[0] as LoadedRow);
  if (!waited || !state.invoice || state.invoice.exchange_rate === null) return state;
  const current = await trx.raw<{ rows: Array<{ booked: string }> }>(bookedQuery('e.invoice_id = ?::int'), [state.invoice.id]);
  return { ...state, booked: current.rows[0]?.booked ?? null };
}

/**
 * The same, read with no lock and no transaction, for the optimistic store (storeRegistrationAlone),
 * with the versions it checks: the settings' and the invoice's as read.
 */
export async function readRegistration(
  db: Knex,
  orgId: number,
  id: number,
  rateDates: { from: string; to: string },
): Promise<{ state: PaymentRegistrationState; read: ReadVersions }> {
  const { rows } = await db.raw<{ rows: LoadedRow[] }>(registrationLoad(SETTINGS_THEN_INVOICE_READ), [
    orgId,
    orgId,
    id,
    rateDates.to,
    rateDates.from,
  ]);
  const row = rows[0] as LoadedRow;
  return { state: stateOf(row).state, read: { settings: row.settings_version, invoice: row.locked_version } };
}

/** What an optimistic registration read and its store checks: the settings' versions (READ_SETTINGS_VERSION) and the invoice's xmin. */
export interface ReadVersions {
  settings: string | null;
  invoice: string | null;
}

function registrationLoad(head: string): string {
  return `${head}
     select ${HELD_SETTINGS_JSON} as settings_held, ${READ_SETTINGS_VERSION} as settings_version,
            case when locked.id is not null then nextval(pg_get_serial_sequence('journal_entries', 'id'))::int end as drawn_entry_id,
            case when locked.id is not null then nextval(pg_get_serial_sequence('payments', 'id'))::int end as drawn_payment_id,
            now() as loaded_at,
            locked.locked_version is distinct from locked.seen_version as waited,
            (select b.booked from (${bookedQuery('e.invoice_id = locked.id')}) b where locked.exchange_rate is not null) as entry_booked,
            ${ratesInWindowQuery('locked.org_id', 'locked.currency')} as table_rates,
            locked.*
       from (select 1) as one left join locked on true`;
}

function stateOf(row: LoadedRow): { state: PaymentRegistrationState; waited: boolean } {
  const {
    settings_held: settings,
    settings_version: _version,
    drawn_entry_id: entryId,
    drawn_payment_id: paymentId,
    loaded_at: now,
    waited,
    entry_booked: booked,
    table_rates: rates,
    locked_version: _locked,
    seen_version: _seen,
    ...invoice
  } = row;
  if (invoice.id === null)
    return { state: { settings, invoice: null, booked: null, rates, ids: { entryId: 0, paymentId: 0 }, now }, waited: false };
  return {
    state: { settings, invoice, booked, rates, ids: { entryId: entryId as number, paymentId: paymentId as number }, now },
    waited: waited === true,
  };
}

type LoadedRow = (InvoiceRow | { [K in keyof InvoiceRow]: null }) & {
  settings_held: OrganizationSettings | null;
  settings_version: string | null;
  drawn_entry_id: number | null;
  drawn_payment_id: number | null;
  loaded_at: Date;
  waited: boolean | null;
  entry_booked: string | null;
  table_rates: Array<{ date: string; rate: string }>;
  locked_version: string | null;
  seen_version: string | null;
};

/**
 * Stores a decided registration with the statement that commits (storeWithCommit): the payment, its
 * entry and lines and its one allocation under the ids the load drew, and the invoice's paid amount
 * and status; the events' outbox rows and the recorded reply join them there.
 */
export async function storeRegistration(trx: Knex.Transaction, plan: PaymentRegistrationPlan): Promise<void> {
  await storeWithCommit(trx, registrationParts(plan, {}));
}

/**
 * The optimistic store of a registration decided on an unlocked read (readRegistration), as the parts
 * of one statement with no transaction of its own (one-statement.ts): the settings held and checked
 * (postingGuard, `store1`), the invoice settled only while it is still the row read (`store2`), and
 * the rest. `expects` holds when the invoice was settled: otherwise nothing of the statement stays
 * and the runtime registers the payment under the invoice's lock.
 */
export function storeRegistrationAlone(plan: PaymentRegistrationPlan, read: ReadVersions): { parts: StorePart[]; expects: string } {
  return {
    parts: [
      postingGuard(plan.payment.org_id as number, read.settings),
      ...registrationParts(plan, { at: plan.invoice.updated_at, read: new Map([[plan.invoice.id, read.invoice ?? '']]) }),
    ],
    expects: '(select count(*) from store2) = 1',
  };
}

function registrationParts(plan: PaymentRegistrationPlan, settled: Parameters<typeof settlementPart>[1]): StorePart[] {
  return [settlementPart([plan.invoice], settled), ...paymentParts(plan.ids, plan.entry, plan.lines, plan.payment, [plan.allocation])];
}
