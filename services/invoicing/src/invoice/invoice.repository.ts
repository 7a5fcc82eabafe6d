import { notFound, type Knex } from '@bo/runtime';
import type { InvoiceRow, LineRow } from './invoice.record';

/** One invoice of the organization, optionally locked; another organization's invoice is not found. */
export async function findInvoice(db: Knex, orgId: number, id: number, opts: { lock?: boolean } = {}): Promise<InvoiceRow> {
  const query = db<InvoiceRow>('invoices').where({ org_id: orgId, id }).first();
  const row = await (opts.lock ? query.forUpdate() : query);
  if (!row) throw notFound('Invoice', id);
  return row;
}

/** One consistent view for a reply that reads several statements: totals with their payments, a page with its count. */
export function inSnapshot<T>(db: Knex, read: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return db.transaction(read, { isolationLevel: 'repeatable read', readOnly: true });
}

export async function linesOf(db: Knex, invoiceIds: number[]): Promise<Map<number, LineRow[]>> {
  const byInvoice = new Map<number, LineRow[]>(invoiceIds.map((id) => [id, []]));
  if (invoiceIds.length === 0) return byInvoice;
  const rows = await db<LineRow>('invoice_lines').whereIn('invoice_id', invoiceIds).orderBy('id');
  for (const r of rows) byInvoice.get(r.invoice_id)?.push(r);
  return byInvoice;
}

export async function isNumberTaken(db: Knex, orgId: number, invoicenumber: string): Promise<boolean> {
  return !!(await db('invoices').select('id').where({ org_id: orgId, invoicenumber }).first());
}

export async function countLines(db: Knex, invoiceId: number): Promise<number> {
  const rows = await db('invoice_lines').where({ invoice_id: invoiceId }).count<{ count: number }[]>({ count: '*' });
  return Number(rows[0]?.count ?? 0);
}
