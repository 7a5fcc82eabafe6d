import {
  exactJson,
  loadedUnlessRefused,
  unlessRefused,
  type ApplyContext,
  type HandlerContext,
  type Knex,
  type OneStatementWrite,
} from '@bo/runtime';
import { assertNotFenced, defaultsOf, settingsReading, type DocumentDefaults, type OrganizationSettings } from '@bo/billing';
import type { NewInvoiceDrawn, NewInvoicePlan } from '../invoice/decide-new-invoice';
import { invoiceRefusals } from '../invoice/invoice-refusals';
import { NEW_DOCUMENT_PAYMENT_STATE, toInvoiceRecord, toRecurringRecord, type InvoiceRow, type LineRow } from '../invoice/invoice.record';
import { findInvoice, linesOf, newInvoicePartsAlone, readInvoiceAsRead, type InvoiceAsRead } from '../invoice/invoice.repository';
import { insertInvoice } from '../invoice/invoice.writer';
import { decideNextChild, type ContractChanges } from './decide-contract';
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
 * Makes the child for the contract's next run date and moves the contract on (decideNextChild), in
 * the caller's transaction with the parent row locked. The unique (parent_id, run_date) index is the
 * last word if two makers ever got this far for the same date.
 */
export async function makeNextChild(trx: Knex.Transaction, parent: InvoiceRow, todayDate: string) {
  const { values, contract } = decideNextChild(parent);
  const parentLines = (await linesOf(trx, [parent.id])).get(parent.id) ?? [];
  const child = await insertInvoice(trx, parent.org_id, values, parentLines);
  const updated = await updateContract(trx, parent.id, contract);
  return { parent: updated, child: toInvoiceRecord(child.row, child.lines, todayDate, NEW_DOCUMENT_PAYMENT_STATE) };
}

/** What a child made by hand decides on: the contract as read, its lines, the defaults of a new invoice of its partner, the ids and time drawn. */
export interface NextChildLoad extends ContractAsRead {
  lines: LineRow[];
  defaults: DocumentDefaults;
  drawn: NewInvoiceDrawn;
}

/**
 * The contract with its version and the organization's today, its lines (exact JSON), the
 * organization's settings and its partner's currency (a new invoice's defaults), and the ids the
 * child and its lines take and the time, drawn: one statement with no lock. Another organization's
 * invoice, or none, is not found; an ordinary invoice is refused.
 */
export async function readNextChild(db: Knex, orgId: number, id: number): Promise<NextChildLoad> {
  const { rows } = await db.raw<{
    rows: Array<
      InvoiceRow & {
        read_version: string;
        settings: OrganizationSettings | null;
        partner_currency: string | null;
        parent_lines: LineRow[];
        drawn: { invoice_id: number; line_ids: number[]; now: string };
      }
    >;
  }>(
    `select i.*, i.xmin::text as read_version,
            (select ${exactJson('s', ['org_id', 'version', 'books_version'])} from organization_settings s where s.org_id = i.org_id) as settings,
            (select p.currency from partner_directory p where p.org_id = i.org_id and p.id = i.partner_id) as partner_currency,
            coalesce((select jsonb_agg(${exactJson('l', ['id', 'org_id', 'invoice_id'])} order by l.id)
                        from invoice_lines l where l.invoice_id = i.id), '[]') as parent_lines,
            json_build_object('invoice_id', nextval(pg_get_serial_sequence('invoices', 'id')),
                              'line_ids', array(select nextval(pg_get_serial_sequence('invoice_lines', 'id'))
                                                  from invoice_lines n where n.invoice_id = i.id order by n.id),
                              'now', now()) as drawn
       from invoices i where i.org_id = ? and i.id = ?`,
    [orgId, id],
  );
  const found = rows[0];
  if (!found) throw invoiceRefusals.invoiceNotFound(id);
  const { read_version: read, settings, partner_currency: partnerCurrency, parent_lines: lines, drawn, ...row } = found;
  if (!row.recurring_enabled) throw recurringRefusals.notRecurringContract(row.invoicenumber);
  const reading = settingsReading(settings);
  return {
    row,
    read,
    today: reading.today(),
    lines,
    defaults: defaultsOf(reading.row, partnerCurrency),
    drawn: { invoiceId: drawn.invoice_id, lineIds: drawn.line_ids, now: new Date(drawn.now) },
  };
}

/**
 * A child made by hand as one statement (one-statement.ts): the child stored as create invoice's
 * optimistic store stores it (the series taken in the statement; newInvoicePartsAlone), then the
 * contract moved on only while it is the row read. `expects` holds when both were written; a
 * contract changed meanwhile (the scheduler made the run's child), or a number taken, leaves nothing,
 * and the locked way answers. The child's number is filled in where the reply and the event carry
 * `invoicenumber`, and the message telling it where the reply says `message`.
 */
export function childAlone(
  plan: NewInvoicePlan,
  child: { row: InvoiceRow; lines: readonly LineRow[] },
  contract: { id: number; changes: ContractChanges; read: string },
  message: (invoicenumber: string) => string,
): Pick<OneStatementWrite, 'parts' | 'expects' | 'fills'> {
  const stored = newInvoicePartsAlone(plan, child, null);
  const moved = contractChangeAlone(contract.id, contract.changes, contract.read).parts[0]!;
  const parts = [...stored.parts, moved];
  // The message as SQL text around the number the statement took (or the one supplied).
  const [before, after] = message('\u0000')
    .split('\u0000')
    .map((t) => `'${t.replaceAll("'", "''")}'`);
  return {
    parts,
    expects: `${stored.expects} and (select count(*) from store${parts.length}) = 1`,
    fills: [
      ...(stored.fills ?? []),
      { key: 'message', sql: `(select to_json(${before} || invoicenumber || ${after})::text from ${stored.inserted})` },
    ],
  };
}
