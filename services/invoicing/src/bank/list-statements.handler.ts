import { invoicing } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { listStatementPage } from './bank.repository';
import { normalizeIban } from './statement';

export const listStatementsHandler = handler(invoicing.listStatements, async (req, ctx) => {
  const iban = req.journal === undefined ? undefined : (normalizeIban(req.journal) ?? '');
  const { statements, pagination } = await listStatementPage(ctx.db, ctx.orgId, { ...req, iban });
  return { message: statements.length ? 'Statements retrieved successfully' : 'No statements found', statements, pagination };
});
