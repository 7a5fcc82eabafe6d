import { invoicing } from '@bo/contracts';
import { handler, recordEvent } from '@bo/runtime';
import { readSettings } from '@bo/billing';
import { cancellationReply, cancelledEvent, decideCancellation } from './decide-cancellation';
import { findInvoice, markCancelled } from './invoice.repository';

/** Load (the invoice under its lock) → decide → store. */
export const cancelInvoiceHandler = handler(invoicing.cancelInvoice, async (req, ctx) => {
  return ctx.db.transaction(async (trx) => {
    const invoice = await findInvoice(trx, ctx.orgId, req.id, { lock: true });
    const cancellation = decideCancellation(invoice, (await readSettings(trx, ctx.orgId)).today());
    const cancelled = await markCancelled(trx, invoice.id, cancellation);
    await recordEvent(trx, invoicing.invoiceCancelled, ctx.orgId, cancelledEvent(cancelled));
    return cancellationReply(cancelled);
  });
});
