import { storeWithCommit, type Knex } from '@bo/runtime';
import { HELD_SETTINGS_JSON, type OrganizationSettings } from '@bo/billing';
import { bookedQuery, paymentParts, ratesInWindowQuery, settlementPart } from '../payment/payment.repository';
import type { PaymentRegistrationPlan, PaymentRegistrationState } from './decide-registration';
import type { InvoiceRow } from './invoice.record';
import { SETTINGS_THEN_INVOICE_LOCKED } from './validation.repository';

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
  const { rows } = await trx.raw<{ rows: LoadedRow[] }>(
    `${SETTINGS_THEN_INVOICE_LOCKED}
     select ${HELD_SETTINGS_JSON} as settings_held,
            case when locked.id is not null then nextval(pg_get_serial_sequence('journal_entries', 'id'))::int end as drawn_entry_id,
            case when locked.id is not null then nextval(pg_get_serial_sequence('payments', 'id'))::int end as drawn_payment_id,
            now() as loaded_at,
            locked.locked_version is distinct from locked.seen_version as waited,
            (select b.booked from (${bookedQuery('e.invoice_id = locked.id')}) b where locked.exchange_rate is not null) as entry_booked,
            ${ratesInWindowQuery('locked.org_id', 'locked.currency')} as table_rates,
            locked.*
       from (select 1) as one left join locked on true`,
    [orgId, orgId, id, rateDates.to, rateDates.from],
  );
  const {
    settings_held: settings,
    drawn_entry_id: entryId,
    drawn_payment_id: paymentId,
    loaded_at: now,
    waited,
    entry_booked: booked,
    table_rates: rates,
    locked_version: _locked,
    seen_version: _seen,
    ...invoice
  } = rows[0] as LoadedRow;
  if (invoice.id === null) return { settings, invoice: null, booked: null, rates, ids: { entryId: 0, paymentId: 0 }, now };
  const current =
    waited && invoice.exchange_rate !== null
      ? ((await trx.raw<{ rows: Array<{ booked: string }> }>(bookedQuery('e.invoice_id = ?::int'), [invoice.id])).rows[0]?.booked ?? null)
      : booked;
  return { settings, invoice, booked: current, rates, ids: { entryId: entryId as number, paymentId: paymentId as number }, now };
}

type LoadedRow = (InvoiceRow | { [K in keyof InvoiceRow]: null }) & {
  settings_held: OrganizationSettings | null;
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
  await storeWithCommit(trx, [
    ...paymentParts(plan.ids, plan.entry, plan.lines, plan.payment, [plan.allocation]),
    settlementPart([plan.invoice]),
  ]);
}
