import { invoicing } from '@bo/contracts';
import { handler, loadedUnlessRefused, recordEvent, statementEvent, unlessRefused } from '@bo/runtime';
import { cancellationReply, cancelledEvent, cancelledEventToFill, decideCancellation } from './decide-cancellation';
import { cancellationAlone, markCancelled, readInvoiceAsRead } from './invoice.repository';

/**
 * Load → decide (decideCancellation) → store, optimistic as a rule: the invoice and the
 * organization's today read with no lock, and the cancellation with its event as one statement, only
 * while the invoice is the row read (`alone`). A validation, a payment or the recurring scheduler
 * that changed it meanwhile, or a refusal, is judged again under the invoice's lock (`apply`), where
 * a refusal is recorded.
 */
export const cancelInvoiceHandler = handler(invoicing.cancelInvoice, {
  alone: async (req, ctx) => {
    const loaded = await loadedUnlessRefused(readInvoiceAsRead(ctx.db, ctx.orgId, req.id));
    const cancellation = loaded && unlessRefused(() => decideCancellation(loaded.row, loaded.today));
    if (!loaded || !cancellation) return undefined;
    return {
      ...cancellationAlone(loaded.row.id, cancellation, loaded.read),
      events: [statementEvent(invoicing.invoiceCancelled, ctx.orgId, cancelledEventToFill(loaded.row))],
      reply: cancellationReply(loaded.row),
    };
  },
  apply: async (req, ctx) => {
    return ctx.db.transaction(async (trx) => {
      const { row, today } = await readInvoiceAsRead(trx, ctx.orgId, req.id, { lock: true });
      const cancelled = await markCancelled(trx, row.id, decideCancellation(row, today));
      await recordEvent(trx, invoicing.invoiceCancelled, ctx.orgId, cancelledEvent(cancelled));
      return cancellationReply(cancelled);
    });
  },
});
