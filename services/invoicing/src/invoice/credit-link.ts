import { amountText } from '@bo/kernel';
import { AppError, validationFailed, type Knex } from '@bo/runtime';
import { claimedCreditedInvoice, creditLinkProblem, creditRoom, isCreditNote } from '../domain/credit-note';
import type { InvoiceRow } from './invoice.record';

/**
 * The invoice a new credit note credits, checked (docs/invoicing.md "Credit notes"): the id its
 * `sourcetype` `invoice` / `sourceid` name, of the organization (another's answers `not_found`, as one
 * that does not exist), the same partner, issued, of the paired type. Null when the note names no
 * invoice; the client's source fields are then free text. Neither the partner, the type nor an issued
 * status of an invoice ever changes, so no lock is needed here: validation locks it.
 */
export async function checkedCreditLink(
  db: Knex,
  orgId: number,
  note: Pick<InvoiceRow, 'invoicetype' | 'partner_id'> & { sourcetype?: string | null; sourceid?: string | null },
): Promise<number | null> {
  const claim = claimedCreditedInvoice(note);
  if (claim.kind === 'none' || !isCreditNote(note.invoicetype)) return null;
  if (claim.kind === 'bad') {
    const message = `sourceid must be the id of the invoice this credit note credits; "${note.sourceid}" is no invoice id`;
    throw validationFailed(message, [{ field: 'sourceid', message }]);
  }
  const credited = await db<InvoiceRow>('invoices').where({ org_id: orgId, id: claim.id }).first();
  if (!credited) {
    const message = `Invoice ${claim.id} not found: a credit note credits an invoice of the organization`;
    throw new AppError(400, 'not_found', message, [{ field: 'sourceid', message }]);
  }
  const problem = creditLinkProblem({ invoicetype: note.invoicetype, partner_id: note.partner_id }, credited);
  if (problem) {
    const message = `Credit note cannot credit invoice ${claim.id}: ${problem.message}`;
    throw new AppError(400, problem.code, message, [{ field: 'sourceid', message }]);
  }
  return credited.id;
}

/**
 * At validation of a credit note that credits an invoice: locks that invoice's row (so validations of
 * its credit notes run one at a time and each sees the ones before) and refuses a note that would take
 * the validated credit notes past the invoice's total, naming what is still creditable. Called with
 * the note itself already locked; nothing else locks a credit note after its invoice, so no deadlock.
 */
export async function assertCreditable(trx: Knex.Transaction, note: InvoiceRow): Promise<void> {
  if (note.credits_invoice_id === null) return;
  const invoice = await trx<InvoiceRow>('invoices').where({ id: note.credits_invoice_id }).forUpdate().first();
  if (!invoice) return;
  const validated = await trx<InvoiceRow>('invoices')
    .where({ credits_invoice_id: invoice.id })
    .whereIn('invoicestatus', ['open', 'paid'])
    .whereNot('id', note.id)
    .pluck('invoicetotal');
  const room = creditRoom(invoice.invoicetotal, validated, note.invoicetotal);
  if (room.fits) return;
  const message =
    `Credit note ${note.invoicenumber} (${amountText(note.invoicetotal)}) would credit invoice ${invoice.invoicenumber} ` +
    `beyond its total ${amountText(invoice.invoicetotal)}: ` +
    `${amountText(room.credited)} is credited already, ${amountText(room.left)} is still creditable`;
  throw new AppError(400, 'credit_exceeds_invoice', message, [{ field: 'invoicetotal', message }]);
}
