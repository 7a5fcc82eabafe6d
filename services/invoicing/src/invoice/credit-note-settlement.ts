import { invoicing } from '@bo/contracts';
import { formatDate } from '@bo/kernel';
import { recordEvent, type Knex } from '@bo/runtime';
import { creditSettlement } from '../domain/credit-note';
import { DEFAULT_PAYMENT_JOURNAL } from '../domain/journal';
import { accountingPlaces } from '../payment/payment-rate';
import { bookAllocations, bookedDocuments, settle } from '../payment/payment.repository';
import type { AllocationRow } from '../payment/payment.record';
import { allocationEvents } from '../payment/payment.events';
import { settledShare, sourceAccount } from '../payment/payment-values';
import type { InvoiceRow } from './invoice.record';

/**
 * Validating a credit note that credits an invoice settles that invoice first (domain/credit-note.ts
 * creditSettlement): one allocation from the note to the invoice, booked as any allocation of a credit
 * note is (its entry where the credit sits on another trade account or is worth another amount in the
 * accounting currency, both documents' paid amounts and statuses, `invoicing.payment.allocated` for
 * the partner ledger), in the validation's transaction. Once: the note was a draft under its lock, and
 * `settles_credited` admits one such allocation per note. `note`: the note as just posted (its entry
 * is in the books); `invoice`: the credited invoice, locked; `accounting`: the accounting currency
 * of the settings the validation read held. Answers the note as settled.
 */
export async function settleCreditedInvoice(
  trx: Knex.Transaction,
  ctx: { orgId: number },
  note: InvoiceRow,
  invoice: InvoiceRow,
  accounting: string | null,
): Promise<{ note: InvoiceRow; allocation: AllocationRow | null }> {
  const decided = creditSettlement(
    { ...note, date: formatDate(note.invoicedatetime) as string },
    { ...invoice, date: formatDate(invoice.invoicedatetime) as string },
  );
  if (!decided) return { note, allocation: null };
  const documents = new Map([[invoice.id, invoice]]);
  const worths = await bookedDocuments(trx, [invoice, note], accountingPlaces(accounting));
  const [allocation] = await bookAllocations(trx, {
    orgId: ctx.orgId,
    source: {
      payment_id: null,
      credit_note_id: note.id,
      account: sourceAccount({ kind: 'credit_note', note }),
      value: { item: worths.get(note.id)!, used: settledShare(note) },
      reference: note.invoicenumber,
    },
    documents,
    booked: worths,
    requested: [{ invoice_id: invoice.id, amount: decided.amount }],
    date: decided.date,
    journal: DEFAULT_PAYMENT_JOURNAL,
    // Keyed by the note itself (`settles_credited`), not by the request's key.
    operationKey: undefined,
    settlesCredited: true,
  });
  const settled = await settle(trx, note, decided.amount);
  await recordEvent(trx, invoicing.paymentAllocated, ctx.orgId, {
    partner_id: note.partner_id,
    payment_id: null,
    credit_note_id: note.id,
    credit_note_number: note.invoicenumber,
    currency: note.currency,
    allocation_date: decided.date,
    allocations: allocationEvents([allocation as AllocationRow], documents),
  });
  return { note: settled, allocation: allocation ?? null };
}
