import { sales } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { actor } from '../actor';
import { checkConvert } from '../quotation/quotation-status';
import { conversionUnfinished, enforce, lockQuotationWithToday, statusOf } from '../quotation/quotation.repository';
import {
  answerConverted,
  askInvoicing,
  checkNotHeldByAnother,
  claimAttempt,
  complete,
  completionFailed,
  type Attempt,
  type ConvertReply,
  type Driver,
} from './conversion';
import type { SourceInvoice } from './invoicing-client';
import { conversionRefusals } from './conversion-refusals';

/**
 * Converts once, all or nothing from the client's view, and never holds the quotation's row lock
 * while invoicing is asked (conversion.ts has the saga's steps). Its gather claims the conversion
 * and asks invoicing; its apply completes it. A convert of a frozen quotation resumes the conversion
 * under way; a convert of a converted one is refused, except for the command that started that
 * conversion, which gets its invoice (it may have been completed by another attempt).
 */
export const convertQuotationHandler = handler(sales.convertQuotation, {
  gather: async (req, ctx): Promise<{ answer: ConvertReply } | { attempt: Attempt; invoice: SourceInvoice }> => {
    const driver: Driver = { operationKey: ctx.operationKey, actor: actor(req, ctx) };
    const claimed = await ctx.db.transaction(async (trx): Promise<{ answer: ConvertReply } | { attempt: Attempt }> => {
      const { quotation: q, today } = await lockQuotationWithToday(trx, ctx.orgId, req.quotation_id);
      if (q.status === 'converted') return { answer: answerConverted(q, driver) };
      if (conversionUnfinished(q)) {
        // Resumed whatever the calendar says since: a quotation that expired while frozen may hold an invoice.
        await checkNotHeldByAnother(trx, q, ctx.operationKey);
        if (q.convert_invoicetype !== null && q.convert_invoicetype !== req.invoicetype)
          throw conversionRefusals.otherInvoiceTypeUnderWay(q.quotation_number, q.convert_invoicetype).asTransient();
      } else {
        enforce(checkConvert(statusOf(q, today)), q);
        if (q.line_count === 0) throw conversionRefusals.quotationWithoutLines(q.quotation_number);
      }
      return { attempt: await claimAttempt(trx, q, req.invoicetype, driver, ctx.config) };
    });
    if ('answer' in claimed) return claimed;
    return { attempt: claimed.attempt, invoice: await askInvoicing(ctx, ctx.call, claimed.attempt) };
  },
  apply: async (_req, ctx, facts) => ('answer' in facts ? facts.answer : complete(ctx.db, facts.attempt, facts.invoice)),
  // Invoicing made the invoice, but the quotation could not be marked converted: pending, released.
  compensate: async (failure, _req, ctx, facts) => {
    if ('attempt' in facts) await completionFailed(ctx, facts.attempt, facts.invoice, failure);
  },
});
