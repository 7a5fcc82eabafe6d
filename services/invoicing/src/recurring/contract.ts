import { type Knex } from '@bo/runtime';
import { addDays, daysBetween, runDate } from '../domain/recurrence';
import { NEW_DOCUMENT_PAYMENT_STATE, toInvoiceRecord, toRecurringRecord, type InvoiceRow } from '../invoice/invoice.record';
import { findInvoice, linesOf } from '../invoice/invoice.repository';
import { insertInvoice } from '../invoice/invoice.writer';
import { recurringRefusals } from './recurring-refusals';

/** A recurring parent of the organization, locked; an ordinary invoice is refused. */
export async function lockContract(trx: Knex.Transaction, orgId: number, id: number): Promise<InvoiceRow> {
  const row = await findInvoice(trx, orgId, id, { lock: true });
  if (!row.recurring_enabled) throw recurringRefusals.notRecurringContract(row.invoicenumber);
  return row;
}

/** Writes a contract's recurring fields and answers its row as it now is. */
export async function updateContract(trx: Knex.Transaction, id: number, changes: Partial<InvoiceRow>): Promise<InvoiceRow> {
  const [row] = (await trx('invoices')
    .where({ id })
    .update({ ...changes, updated_at: trx.fn.now() })
    .returning('*')) as InvoiceRow[];
  return row as InvoiceRow;
}

export function contractReply(message: string, row: InvoiceRow) {
  return { message, invoice: { id: row.id, invoicenumber: row.invoicenumber, recurring: toRecurringRecord(row) } };
}

/**
 * Makes the child for the contract's next run date and moves the contract on, in the caller's
 * transaction with the parent row locked. The unique (parent_id, run_date) index is the last word
 * if two makers ever got this far for the same date.
 */
export async function makeNextChild(trx: Knex.Transaction, parent: InvoiceRow, todayDate: string) {
  const runOn = parent.recurring_next_run_date as string;
  const parentDate = parent.invoicedatetime.toISOString().slice(0, 10);
  const parentLines = (await linesOf(trx, [parent.id])).get(parent.id) ?? [];
  const child = await insertInvoice(
    trx,
    parent.org_id,
    {
      invoicetype: parent.invoicetype,
      partner_id: parent.partner_id,
      invoicestatus: 'draft',
      invoicedatetime: new Date(`${runOn}T00:00:00Z`),
      // The child keeps the parent's payment delay.
      invoicedue: parent.invoicedue ? addDays(runOn, Math.max(0, daysBetween(parentDate, parent.invoicedue))) : null,
      comments: parent.comments,
      invoicereference: parent.invoicereference,
      invoiceterms: parent.invoiceterms,
      chartofaccounts: parent.chartofaccounts,
      invoicejournal: parent.invoicejournal,
      tradeaccount: parent.tradeaccount,
      restock: parent.restock,
      // The child bills in its contract's currency, whatever the partner's is now, at its exchange
      // rate, with its allowances and charges; its taxes are computed with the organization's policy now.
      ...(parent.currency ? { currency: parent.currency } : {}),
      exchange_rate: parent.exchange_rate,
      allowances_charges: parent.allowances_charges,
      created_by: parent.created_by,
      parent_id: parent.id,
      run_date: runOn,
    },
    parentLines,
  );
  const generated = parent.recurring_generated + 1;
  const nextIndex = parent.recurring_next_index + 1;
  const completed = parent.recurring_occurrences > 0 && generated >= parent.recurring_occurrences;
  const [updated] = (await trx('invoices')
    .where({ id: parent.id })
    .update({
      recurring_generated: generated,
      recurring_next_index: nextIndex,
      recurring_next_run_date: completed ? null : runDate(parent.recurring_start_date as string, parent.recurring_frequency!, nextIndex),
      recurring_status: completed ? 'completed' : parent.recurring_status,
      updated_at: trx.fn.now(),
    })
    .returning('*')) as InvoiceRow[];
  return { parent: updated as InvoiceRow, child: toInvoiceRecord(child.row, child.lines, todayDate, NEW_DOCUMENT_PAYMENT_STATE) };
}
