import { invoicing, type RequestOf } from '@bo/contracts';
import { handler, validationFailed, type Knex } from '@bo/runtime';
import { periodProblem } from './period';
import { vatReport } from './vat.report';

type ReportRequest = RequestOf<typeof invoicing.runReport>;
type ReportReply = invoicing.VatReportReply;

/** Each report by its `report` name, one file each. */
const reports: Record<invoicing.ReportName, (db: Knex, orgId: number, req: ReportRequest) => Promise<ReportReply>> = {
  vat: vatReport,
};

export const runReportHandler = handler(invoicing.runReport, async (req, ctx) => {
  const problem = periodProblem(req.date_from, req.date_to);
  if (problem) throw validationFailed(problem.message, [problem]);
  return reports[req.report](ctx.db, ctx.orgId, req);
});
