import { invoicing } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { agedReport } from './aged.report';
import { bankReconciliationReport } from './bank-reconciliation.report';
import { periodProblem } from './period';
import { reportRefusals } from './report-refusals';
import { statementReport } from './statement.report';
import { vatReport } from './vat.report';

type ReportRequest =
  invoicing.VatReportRequest | invoicing.AgedReportRequest | invoicing.StatementReportRequest | invoicing.BankReconciliationReportRequest;
const isAged = (req: ReportRequest): req is invoicing.AgedReportRequest =>
  (invoicing.agedReportNames as readonly string[]).includes(req.report);

/** Each report by its `report` name, one file each; those over a period have their period checked first. */
export const runReportHandler = handler(invoicing.runReport, async (req: ReportRequest, ctx) => {
  if (isAged(req)) return agedReport(ctx.db, ctx.orgId, req);
  if (req.report === 'bank_reconciliation') return bankReconciliationReport(ctx.db, ctx.orgId, req);
  const problem = periodProblem(req.date_from, req.date_to);
  if (problem) throw reportRefusals.periodRefused(problem);
  if (req.report === 'statement') return statementReport(ctx, req);
  return vatReport(ctx.db, ctx.orgId, req);
});
