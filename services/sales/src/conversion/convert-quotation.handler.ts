import { sales, type RequestOf } from '@bo/contracts';
import { handler, type BaseConfig, type Knex } from '@bo/runtime';
import { actor } from '../actor';
import { checkConvert } from '../quotation/quotation-status';
import {
  conversionUnfinished,
  enforce,
  lockQuotationWithToday,
  quotationAsRead,
  quotationWithTodayRead,
  readQuotationWithToday,
  statusOf,
} from '../quotation/quotation.repository';
import type { QuotationRow } from '../quotation/quotation.record';
import {
  answerConverted,
  askInvoicing,
  checkNotHeldByAnother,
  claimAttempt,
  complete,
  completionAlone,
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
  // The quotation is read by the statement that claims the key, so the claim costs no round trip of its own.
  readWithClaim: (req, ctx) => quotationWithTodayRead(ctx.orgId, req.quotation_id),
  gather: async (req, ctx, claimedRead): Promise<{ answer: ConvertReply } | { attempt: Attempt; invoice: SourceInvoice }> => {
    const driver: Driver = { operationKey: ctx.operationKey, actor: actor(req, ctx) };
    // Claimed on an unlocked read as a rule, changing the quotation only while it is the row read;
    // when it moved meanwhile, claimed again under its lock.
    const { quotation, today, read } = claimedRead
      ? quotationAsRead(claimedRead, req.quotation_id)
      : await readQuotationWithToday(ctx.db, ctx.orgId, req.quotation_id);
    const claimed =
      (await claim(ctx.db, quotation, today, req, driver, ctx.config, read)) ??
      (await ctx.db.transaction(async (trx) => {
        const { quotation: q, today: now } = await lockQuotationWithToday(trx, ctx.orgId, req.quotation_id);
        return claim(trx, q, now, req, driver, ctx.config);
      }));
    // Under the lock, with no read to check, a claim always answers.
    if (!claimed) throw new Error(`quotation ${req.quotation_id}: a claim under its lock answered nothing`);
    if ('answer' in claimed) return claimed;
    return { attempt: claimed.attempt, invoice: await askInvoicing(ctx, ctx.call, claimed.attempt) };
  },
  // Completed as one statement as a rule, on the quotation as the attempt froze it (completionAlone).
  alone: (_req, _ctx, facts) => ('answer' in facts ? undefined : completionAlone(facts.attempt, facts.invoice)),
  apply: async (_req, ctx, facts) => ('answer' in facts ? facts.answer : complete(ctx.db, facts.attempt, facts.invoice)),
  // Invoicing made the invoice, but the quotation could not be marked converted: pending, released.
  compensate: async (failure, _req, ctx, facts) => {
    if ('attempt' in facts) await completionFailed(ctx, facts.attempt, facts.invoice, failure);
  },
});

type Claimed = { answer: ConvertReply } | { attempt: Attempt } | undefined;

/**
 * Step 1 on the quotation as read: the answer of a converted one, a refusal, or the attempt claimed
 * (claimAttempt). With `read`, undefined when the quotation moved since it was read.
 */
async function claim(
  db: Knex,
  q: QuotationRow,
  today: string,
  req: RequestOf<typeof sales.convertQuotation>,
  driver: Driver,
  config: BaseConfig,
  read?: string,
): Promise<Claimed> {
  if (q.status === 'converted') return { answer: answerConverted(q, driver) };
  if (conversionUnfinished(q)) {
    // Resumed whatever the calendar says since: a quotation that expired while frozen may hold an invoice.
    await checkNotHeldByAnother(db, q, driver.operationKey);
    if (q.convert_invoicetype !== null && q.convert_invoicetype !== req.invoicetype)
      throw conversionRefusals.otherInvoiceTypeUnderWay(q.quotation_number, q.convert_invoicetype).asTransient();
  } else {
    enforce(checkConvert(statusOf(q, today)), q);
    if (q.line_count === 0) throw conversionRefusals.quotationWithoutLines(q.quotation_number);
  }
  const attempt = await claimAttempt(db, q, req.invoicetype, driver, config, read);
  return attempt && { attempt };
}
