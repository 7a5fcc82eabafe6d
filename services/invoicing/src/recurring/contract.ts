import { loadedUnlessRefused, unlessRefused, type ApplyContext, type HandlerContext, type Knex, type OneStatementWrite } from '@bo/runtime';
import { assertNotFenced } from '@bo/billing';
import { addDays, daysBetween, runDate } from '../domain/recurrence';
import { NEW_DOCUMENT_PAYMENT_STATE, toInvoiceRecord, toRecurringRecord, type InvoiceRow } from '../invoice/invoice.record';
import { findInvoice, linesOf, readInvoiceAsRead, type InvoiceAsRead } from '../invoice/invoice.repository';
import { insertInvoice } from '../invoice/invoice.writer';
import type { ContractChanges } from './decide-contract';
import { recurringRefusals } from './recurring-refusals';

/** A recurring parent of the organization, locked; an ordinary invoice is refused. */
export async function lockContract(trx: Knex.Transaction, orgId: number, id: number): Promise<InvoiceRow> {
  const row = await findInvoice(trx, orgId, id, { lock: true });
  if (!row.recurring_enabled) throw recurringRefusals.notRecurringContract(row.invoicenumber);
  return row;
}

/** A recurring parent as a change of it decides on it: the row, its version, and the organization's today. */
export type ContractAsRead = InvoiceAsRead;

/** A recurring parent of the organization as read (readInvoiceAsRead); an ordinary invoice is refused. */
async function contractAsRead(db: Knex, orgId: number, id: number, lock: boolean): Promise<ContractAsRead> {
  const loaded = await readInvoiceAsRead(db, orgId, id, { lock });
  if (!loaded.row.recurring_enabled) throw recurringRefusals.notRecurringContract(loaded.row.invoicenumber);
  return loaded;
}

/**
 * A recurring parent read with no lock (contractAsRead). Undefined when the read refuses (not found,
 * not recurring): that is judged again, and recorded, under the lock.
 */
export async function readContract(db: Knex, orgId: number, id: number): Promise<ContractAsRead | undefined> {
  return loadedUnlessRefused(contractAsRead(db, orgId, id, false));
}

/**
 * A contract's recurring fields written as one statement, only while it is the row read and, when
 * `fencedPartner` is given, while no delete of that partner stands (partner_fenced, its lock taken
 * shared until the statement commits); else nothing.
 */
export function contractChangeAlone(
  id: number,
  changes: Partial<InvoiceRow>,
  read: string,
  fencedPartner?: number,
): Pick<OneStatementWrite, 'parts' | 'expects'> {
  const columns = Object.keys(changes);
  const values = columns.map((c) => (changes as Record<string, Knex.RawBinding | undefined>)[c] ?? null);
  const assignments = `${columns.map((c) => `"${c}" = ?`).join(', ')}, updated_at = now()`;
  return {
    parts: [
      fencedPartner === undefined
        ? { sql: `update invoices set ${assignments} where id = ? and xmin::text = ? returning id`, bindings: [...values, id, read] }
        : {
            sql: `update invoices set ${assignments}
                   where id = ? and xmin::text = ? and not (select partner_fenced(org_id, ?::int)) returning id`,
            bindings: [...values, id, read, fencedPartner],
          },
    ],
    expects: '(select count(*) from store1) = 1',
  };
}

/** How a write that changes only a contract's recurring fields decides, and what its store must also hold. */
export interface ContractChange<R> {
  message: string;
  decide: (contract: ContractAsRead, req: R) => ContractChanges;
  /** The change sets the contract billing its partner again: refused while a delete of the partner stands. */
  fencesPartner?: boolean;
}

/**
 * The steps of a write that changes only a contract's recurring fields (pause, resume, cancel): load
 * → decide → store, optimistic as a rule. The contract read with no lock and its change written as
 * one statement only while it is the row read (`alone`, its reply the contract as the change leaves
 * it); a refusal, or a contract changed meanwhile, or a partner fenced, judged under the contract's
 * lock (`apply`).
 */
export function contractChangeSteps<R extends { id: number }>(change: ContractChange<R>) {
  return {
    alone: async (req: R, ctx: HandlerContext) => {
      const loaded = await readContract(ctx.db, ctx.orgId, req.id);
      const changes = loaded && unlessRefused(() => change.decide(loaded, req));
      if (!loaded || !changes) return undefined;
      const fenced = change.fencesPartner ? loaded.row.partner_id : undefined;
      return {
        ...contractChangeAlone(loaded.row.id, changes, loaded.read, fenced),
        events: [],
        reply: contractReply(change.message, { ...loaded.row, ...changes }),
      };
    },
    apply: async (req: R, ctx: ApplyContext) => {
      return ctx.db.transaction(async (trx) => {
        const contract = await contractAsRead(trx, ctx.orgId, req.id, true);
        const changes = change.decide(contract, req);
        // A paused contract does not keep its partner from being deleted: a delete about to commit
        // fences the partner, and the contract stays as it is until the partner-deleted event ends it.
        if (change.fencesPartner) await assertNotFenced(trx, ctx.orgId, contract.row.partner_id);
        return contractReply(change.message, await updateContract(trx, contract.row.id, changes));
      });
    },
  };
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
