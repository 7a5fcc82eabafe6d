import { invoicing } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { bankRefusals } from './bank-refusals';
import { findLine, lineRecords, setLineStatus } from './bank.repository';

/** Sets a line aside (a transfer between own accounts, a line booked elsewhere): nothing is posted; unreconcile opens it again. */
export const ignoreBankLineHandler = handler(invoicing.ignoreBankLine, async (req, ctx) => {
  const line = await findLine(ctx.db, ctx.orgId, req.line_id, { lock: true });
  if (line.status === 'reconciled') throw bankRefusals.reconciledLineIgnored(line.id);
  await setLineStatus(ctx.db, line.id, 'ignored');
  const [record] = await lineRecords(ctx.db, [{ ...line, status: 'ignored' }]);
  return { message: `Bank line ${line.id} ignored`, line: record! };
});
