import { sales, type RequestOf } from '@bo/contracts';
import { handler, type BaseConfig, type Knex } from '@bo/runtime';
import { actor } from '../actor';
import { lockQuotationWithToday, quotationAsRead, quotationWithTodayRead, readQuotationWithToday } from '../quotation/quotation.repository';
import type { QuotationRow } from '../quotation/quotation.record';
import { askInvoicing, claimAttempt, complete, completionAlone, completionFailed, type Attempt } from './conversion';
import { decideClaim, type ConvertReply, type Driver } from './decide-claim';
import type { SourceInvoice } from './invoicing-client';

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
    const asRead = claimedRead
      ? quotationAsRead(claimedRead, req.quotation_id)
      : await readQuotationWithToday(ctx.db, ctx.orgId, req.quotation_id);
    const claimed =
      (await claim(ctx.db, asRead, req, driver, ctx.config)) ??
      (await ctx.db.transaction(async (trx) =>
        claim(trx, await lockQuotationWithToday(trx, ctx.orgId, req.quotation_id), req, driver, ctx.config),
      ));
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
 * Step 1: decided on the quotation as loaded (decideClaim), then the attempt stored (claimAttempt).
 * With `read` (loaded with no lock), undefined when the quotation moved since it was read.
 */
async function claim(
  db: Knex,
  loaded: { quotation: QuotationRow; today: string; leaseLive: boolean; read?: string },
  req: RequestOf<typeof sales.convertQuotation>,
  driver: Driver,
  config: BaseConfig,
): Promise<Claimed> {
  const { quotation: q, today, leaseLive, read } = loaded;
  const decided = decideClaim(q, { today, leaseLive, nowMs: Date.now(), rpcTimeoutMs: config.RPC_TIMEOUT_MS }, req.invoicetype, driver);
  if ('answer' in decided) return decided;
  const attempt = await claimAttempt(db, q, decided.claim, driver, config, read);
  return attempt && { attempt };
}
