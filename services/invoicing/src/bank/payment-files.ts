import type { invoicing } from '@bo/contracts';
import { dec, toNumber } from '@bo/kernel';
import { storeWithCommit, type Knex, type OneStatementWrite, type StorePart } from '@bo/runtime';
import type { InvoiceRow } from '../invoice/invoice.record';
import { lockDocuments } from '../payment/payment.repository';
import type { LineRow } from './bank.repository';

/**
 * Vendor bills in a SEPA payment file (docs/bank.md "Paying vendors"): SQL of the `payment_files`
 * and `payment_file_bills` tables. A bill is `in_payment` from the file until the debit line naming
 * its transfer's end-to-end id is reconciled against it, then `paid`; unreconciling the line puts it
 * back in payment.
 */
export interface PaymentFileBillRow {
  id: number;
  org_id: number;
  file_id: number;
  invoice_id: number;
  partner_id: number;
  amount: string;
  creditor_iban: string;
  end_to_end_id: string;
  status: 'in_payment' | 'paid';
  line_id: number | null;
}

/** What a payment file decides on here (payment-files.ts): the bills, those already in a file (by bill, its file), the id the file is given, and the time it is made. */
export interface PaymentFileLoad {
  bills: ReadonlyMap<number, InvoiceRow>;
  taken: ReadonlyMap<number, number>;
  fileId: number;
  now: Date;
}

/** A payment file as stored: its row, one bill row per transfer, and its pain.001 text. */
export interface PaymentFileRow {
  id: number;
  org_id: number;
  message_id: string;
  execution_date: string;
  debtor_iban: string;
  currency: 'EUR';
  total: string;
  transfers: number;
  content: string;
  created_at: Date;
}

export type PaymentFileBillNew = Omit<PaymentFileBillRow, 'id' | 'status' | 'line_id'>;

/** What storing a payment file writes: the file, and its bills. */
export interface PaymentFileStore {
  file: PaymentFileRow;
  bills: PaymentFileBillNew[];
}

/** The end-to-end id of a bill's transfer: short (35 characters at most), unique per organization, readable back from the debit line. */
export const endToEndIdOf = (fileId: number, invoiceId: number) => `PF${fileId}-${invoiceId}`;

/** Open EUR vendor bills due by a day with something to pay and not in a payment file. */
export async function billsDueBy(db: Knex, orgId: number, dueBy: string): Promise<number[]> {
  const rows: Array<{ id: number }> = await db('invoices as i')
    .where({ 'i.org_id': orgId, 'i.invoicetype': 'invoicein', 'i.invoicestatus': 'open' })
    .where('i.invoicedue', '<=', dueBy)
    .where('i.currency', 'EUR')
    .whereRaw('i.invoicetotal - i.amount_paid - i.written_off_amount > 0')
    .whereNotExists((q) => {
      void q.from('payment_file_bills as b').whereRaw('b.org_id = i.org_id and b.invoice_id = i.id').where('b.status', 'in_payment');
    })
    .orderBy('i.id')
    .select('i.id');
  return rows.map((r) => r.id);
}

/** The bill in payment whose transfer a debit line states (its end-to-end id, for exactly the bill's amount). */
export async function transferOfLine(db: Knex, orgId: number, line: LineRow): Promise<PaymentFileBillRow | undefined> {
  if (!line.end_to_end_id || !dec(line.amount).isNegative()) return undefined;
  const row = (await db('payment_file_bills').where({ org_id: orgId, end_to_end_id: line.end_to_end_id, status: 'in_payment' }).first()) as
    PaymentFileBillRow | undefined;
  return row && dec(row.amount).eq(dec(line.amount).abs()) ? row : undefined;
}

/** After a line's payment was allocated: the bills it paid in full leave payment, paid by that line. */
export async function settlePaidBills(db: Knex, orgId: number, lineId: number, invoiceIds: readonly number[]): Promise<void> {
  if (!invoiceIds.length) return;
  await db('payment_file_bills as b')
    .where({ 'b.org_id': orgId, 'b.status': 'in_payment' })
    .whereIn('b.invoice_id', [...invoiceIds])
    .whereExists((q) => {
      void q.from('invoices as i').whereRaw('i.id = b.invoice_id').where('i.invoicestatus', 'paid');
    })
    .update({ status: 'paid', line_id: lineId });
}

export function paymentFileBillRecord(row: PaymentFileBillRow, invoicenumber: string): invoicing.PaymentFileBillRecord {
  return {
    invoice_id: row.invoice_id,
    invoicenumber,
    partner: row.partner_id,
    amount: toNumber(row.amount),
    creditor_iban: row.creditor_iban,
    end_to_end_id: row.end_to_end_id,
    status: row.status,
  };
}

/** The partners of the organization's documents named. */
export async function partnersOfDocuments(db: Knex, orgId: number, ids: readonly number[]): Promise<Array<{ partner_id: number }>> {
  return db('invoices').where({ org_id: orgId }).whereIn('id', ids).distinct('partner_id');
}

/** What drawing a payment file's id reads beside it: the id, and the time the file is made. */
const DRAWN_FILE = `nextval(pg_get_serial_sequence('payment_files', 'id'))::int as drawn_file_id, now() as loaded_at`;

type ReadBill = (InvoiceRow | { [K in keyof InvoiceRow]: null }) & {
  drawn_file_id: number;
  loaded_at: Date;
  taken_file_id: number | null;
  read_version: string | null;
};

/**
 * What a payment file decides on (PaymentFileLoad), read with no lock in one statement, for the
 * optimistic store (paymentFileAlone): the bills named, each with its xmin (`read`) and the file it is
 * already in, if any; the file's id drawn; the time. No bills named: nothing to read.
 */
export async function readPaymentFile(
  db: Knex,
  orgId: number,
  ids: readonly number[],
): Promise<{ load: PaymentFileLoad; read: ReadonlyMap<number, string> }> {
  if (!ids.length) return { load: { bills: new Map(), taken: new Map(), fileId: 0, now: new Date(0) }, read: new Map() };
  const { rows } = await db.raw<{ rows: ReadBill[] }>(
    `select d.*, t.file_id as taken_file_id, b.xmin::text as read_version, b.*
       from (select ${DRAWN_FILE}) d
       left join invoices b on b.org_id = ? and b.id = any(?::int[])
       left join payment_file_bills t on t.org_id = b.org_id and t.invoice_id = b.id and t.status = 'in_payment'
      order by b.id`,
    [orgId, [...ids]],
  );
  const bills = new Map<number, InvoiceRow>();
  const taken = new Map<number, number>();
  const read = new Map<number, string>();
  for (const { drawn_file_id: _drawn, loaded_at: _at, taken_file_id: file, read_version: version, ...bill } of rows) {
    if (bill.id === null) continue;
    bills.set(bill.id, bill);
    read.set(bill.id, version!);
    if (file !== null) taken.set(bill.id, file);
  }
  return { load: { bills, taken, fileId: rows[0]!.drawn_file_id, now: rows[0]!.loaded_at }, read };
}

/** The same under the bills' locks (in id order, as every cash operation locks documents), in the runtime's transaction. */
export async function loadPaymentFile(trx: Knex.Transaction, orgId: number, ids: readonly number[]): Promise<PaymentFileLoad> {
  if (!ids.length) return { bills: new Map(), taken: new Map(), fileId: 0, now: new Date(0) };
  const bills = await lockDocuments(trx, orgId, ids);
  const { rows } = await trx.raw<{
    rows: Array<{ drawn_file_id: number; loaded_at: Date; taken: Array<{ invoice_id: number; file_id: number }> }>;
  }>(
    `select ${DRAWN_FILE},
            (select coalesce(json_agg(json_build_object('invoice_id', t.invoice_id, 'file_id', t.file_id)), '[]')
               from payment_file_bills t where t.org_id = ? and t.status = 'in_payment' and t.invoice_id = any(?::int[])) as taken`,
    [orgId, [...ids]],
  );
  const row = rows[0]!;
  return { bills, taken: new Map(row.taken.map((t) => [t.invoice_id, t.file_id])), fileId: row.drawn_file_id, now: row.loaded_at };
}

/** The file and its bills, each insert only while the guard (`store1`) holds, when `guarded`. */
function paymentFileParts(plan: PaymentFileStore, guarded: boolean): StorePart[] {
  const f = plan.file;
  const when = guarded ? ' where (select unchanged from store1)' : '';
  return [
    {
      sql: `insert into payment_files (id, org_id, message_id, execution_date, debtor_iban, currency, total, transfers, content, created_at)
            select ?::int, ?::int, ?::text, ?::date, ?::text, ?::text, ?::numeric, ?::int, ?::text, ?::timestamptz${when} returning id`,
      bindings: [f.id, f.org_id, f.message_id, f.execution_date, f.debtor_iban, f.currency, f.total, f.transfers, f.content, f.created_at],
    },
    {
      sql: `insert into payment_file_bills (org_id, file_id, invoice_id, partner_id, amount, creditor_iban, end_to_end_id)
            select r.org_id, r.file_id, r.invoice_id, r.partner_id, r.amount, r.creditor_iban, r.end_to_end_id
              from jsonb_to_recordset(?::jsonb) as r(org_id int, file_id int, invoice_id int, partner_id int, amount numeric,
                                                     creditor_iban text, end_to_end_id text)${when}
            returning id`,
      bindings: [JSON.stringify(plan.bills)],
    },
  ];
}

/** Stores a payment file decided under the bills' locks, with the statement that commits. */
export async function storePaymentFile(trx: Knex.Transaction, plan: PaymentFileStore): Promise<void> {
  await storeWithCommit(trx, paymentFileParts(plan, false));
}

/**
 * The optimistic store of a payment file decided on an unlocked read (readPaymentFile), as one
 * statement (one-statement.ts): the bills locked in id order, as lockDocuments locks them, and
 * checked to be the rows read (`store1`: a payment, a write-off, any change of a bill moves its
 * xmin); then the file (`store2`) and its bills (`store3`) only while they are. `expects` holds when
 * both were written; a bill put in another file meanwhile meets the unique index of bills in payment.
 * Either way nothing of the statement stays, and the runtime decides again under the locks.
 */
export function paymentFileAlone(plan: PaymentFileStore, read: ReadonlyMap<number, string>): Pick<OneStatementWrite, 'parts' | 'expects'> {
  const ids = [...read.keys()];
  return {
    parts: [
      {
        sql: `select count(*) = ? as unchanged
                from (select i.id, i.xmin::text as version from invoices i where i.org_id = ? and i.id = any(?::int[]) order by i.id for update) l
                join unnest(?::int[], ?::text[]) as r(id, version) on r.id = l.id and r.version = l.version`,
        bindings: [plan.bills.length, plan.file.org_id, ids, ids, ids.map((id) => read.get(id)!)],
      },
      ...paymentFileParts(plan, true),
    ],
    expects: `(select count(*) from store2) = 1 and (select count(*) from store3) = ${plan.bills.length}`,
  };
}
