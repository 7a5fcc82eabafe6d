import { invoicing } from '@bo/contracts';
import { toNumber } from '@bo/kernel';
import { handler } from '@bo/runtime';
import { findLine, lineRecords, matchContext, matchLine } from './bank.repository';
import { candidatesFor } from './matching';

/** A line's candidates with their scores and reasons (matching.ts); a reconciled or ignored line has none to offer but is shown. */
export const suggestBankLineHandler = handler(invoicing.suggestBankLine, async (req, ctx) => {
  const line = await findLine(ctx.db, ctx.orgId, req.line_id);
  const candidates = line.status === 'reconciled' ? [] : candidatesFor(matchLine(line), await matchContext(ctx.db, ctx.orgId));
  const [record] = await lineRecords(ctx.db, [line]);
  return {
    message: candidates.length ? `${candidates.length} candidate(s) found` : 'No candidates found',
    line: record!,
    candidates: candidates.map((c) => ({ ...c, amount_due: c.amount_due === null ? null : toNumber(c.amount_due) })),
  };
});
