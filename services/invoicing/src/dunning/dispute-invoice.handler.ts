import { invoicing } from '@bo/contracts';
import { formatDateTime } from '@bo/kernel';
import { handler } from '@bo/runtime';
import { invoiceRefusals } from '../invoice/invoice-refusals';
import { dunningRefusals } from './dunning-refusals';
import { setDispute } from './dunning.repository';

/**
 * Marks a customer invoice disputed, or clears the mark: while it is set no reminder run sends the
 * invoice a letter (skipped as `disputed`), and the invoice is otherwise unchanged (it stays due,
 * payable and in the aged balances). Setting it twice keeps the first time it was set.
 */
export const dunningDisputeHandler = handler(invoicing.dunningDispute, async (req, ctx) => {
  const row = await setDispute(ctx.db, ctx.orgId, req.invoice_id, req.disputed, req.reason ?? null);
  if (row.invoicetype === null) throw invoiceRefusals.invoiceNotFound(req.invoice_id);
  if (row.invoicenumber === null) throw dunningRefusals.disputeOfNonCustomerInvoice(req.invoice_id, row.invoicetype);
  return {
    message: row.dunning_disputed ? `Invoice ${row.invoicenumber} marked disputed` : `Invoice ${row.invoicenumber} no longer disputed`,
    invoice_id: req.invoice_id,
    invoicenumber: row.invoicenumber,
    disputed: row.dunning_disputed === true,
    reason: row.dunning_dispute_reason,
    disputed_at: formatDateTime(row.dunning_disputed_at),
  };
});
