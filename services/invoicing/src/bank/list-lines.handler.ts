import { invoicing } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { listLinePage } from './bank.repository';

export const listBankLinesHandler = handler(invoicing.listBankLines, async (req, ctx) => {
  const { lines, pagination } = await listLinePage(ctx.db, ctx.orgId, req);
  return { message: lines.length ? 'Lines retrieved successfully' : 'No lines found', lines, pagination };
});
