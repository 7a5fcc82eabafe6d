import type { invoicing } from '@bo/contracts';
import { dec, toNumber } from '@bo/kernel';
import type { Knex } from '@bo/runtime';
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

/** The bills of the list already in a payment file, by bill. */
export async function billsInPayment(db: Knex, orgId: number, invoiceIds: readonly number[]): Promise<Map<number, PaymentFileBillRow>> {
  const rows = (await db('payment_file_bills')
    .where({ org_id: orgId, status: 'in_payment' })
    .whereIn('invoice_id', [...invoiceIds])) as PaymentFileBillRow[];
  return new Map(rows.map((r) => [r.invoice_id, r]));
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

/** A line unreconciled: the bills it had paid are in payment again (their transfer was made). */
export async function reopenPaidBills(db: Knex, orgId: number, lineId: number): Promise<void> {
  await db('payment_file_bills').where({ org_id: orgId, line_id: lineId, status: 'paid' }).update({ status: 'in_payment', line_id: null });
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

/** A new payment file, its content written once its message id is known (completePaymentFile). */
export async function insertPaymentFile(
  db: Knex,
  row: {
    org_id: number;
    message_id: string;
    execution_date: string;
    debtor_iban: string;
    currency: string;
    total: string;
    transfers: number;
  },
): Promise<{ id: number; created_at: Date }> {
  const [file] = (await db('payment_files')
    .insert({ ...row, content: '' })
    .returning('*')) as Array<{ id: number; created_at: Date }>;
  return file!;
}

/** The bills of a payment file, one transfer each. */
export async function insertPaymentFileBills(
  db: Knex,
  rows: ReadonlyArray<Omit<PaymentFileBillRow, 'id' | 'status' | 'line_id'>>,
): Promise<PaymentFileBillRow[]> {
  return (await db('payment_file_bills').insert(rows).returning('*')) as PaymentFileBillRow[];
}

/** The file's message id and its pain.001 text. */
export async function completePaymentFile(db: Knex, id: number, messageId: string, xml: string): Promise<void> {
  await db('payment_files').where({ id }).update({ message_id: messageId, content: xml });
}
