import { invoicing } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { findLine, lineRecords } from './bank.repository';
import { unreconcileLine } from './reconcile';

/** Opens a reconciled or ignored line again: the payment its reconciliation made is voided, its own postings reversed. */
export const unreconcileBankLineHandler = handler(invoicing.unreconcileBankLine, async (req, ctx) => {
  const line = await findLine(ctx.db, ctx.orgId, req.line_id, { lock: true });
  await unreconcileLine(ctx, line);
  const [record] = await lineRecords(ctx.db, [await findLine(ctx.db, ctx.orgId, line.id)]);
  return { message: `Bank line ${line.id} is open again`, line: record! };
});
