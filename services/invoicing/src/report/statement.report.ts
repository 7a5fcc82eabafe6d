import type { invoicing } from '@bo/contracts';
import { drawStatementPdf } from '@bo/documents';
import { type HandlerContext } from '@bo/runtime';
import { findPartner, requireLivePartner } from '@bo/billing';
import { accountingCurrency } from '../exchange-rate/exchange-rate.repository';
import { accountingPlaces } from './aged.report';
import { addDays } from '../domain/recurrence';
import { loadHistory } from '../ledger/history';
import { Ledger } from '../ledger/ledger';
import { statementOf } from '../ledger/views';
import { reportSnapshot } from './snapshot';

/**
 * A partner's statement of a period, of its customer or its vendor side (ledger/views.ts statementOf),
 * as JSON or, with `format: "pdf"`, as a PDF answered like the documents operations. The partner is
 * one this service has seen (a deleted one keeps its history), else one the partners service knows in
 * the organization: any other is `not_found` on `partner`.
 */
export async function statementReport(
  ctx: Pick<HandlerContext, 'db' | 'orgId' | 'call'>,
  req: invoicing.StatementReportRequest,
): Promise<invoicing.StatementReportReply | invoicing.StatementFileReply> {
  const known = (await findPartner(ctx.db, ctx.orgId, req.partner)) ?? (await requireLivePartner(ctx, req.partner));
  // A fixed default, not one by the partner's type: a type changes, and a saved request would change side with it.
  const side = req.side ?? 'customer';
  const statement = await reportSnapshot(ctx.db, async (trx) => {
    const currency = await accountingCurrency(trx, ctx.orgId);
    const ledger = new Ledger(
      await loadHistory(trx, ctx.orgId, { partner: req.partner, openOn: addDays(req.date_from, -1) }),
      accountingPlaces(currency),
    );
    return { currency, ...statementOf(ledger, req.partner, side, req.date_from, req.date_to, currency) };
  });
  const reply: invoicing.StatementReportReply = {
    message: `Statement of ${known.partnername} from ${req.date_from} to ${req.date_to}`,
    report: 'statement',
    partner: req.partner,
    partnername: known.partnername,
    side,
    date_from: req.date_from,
    date_to: req.date_to,
    ...statement,
  };
  if (req.format !== 'pdf') return reply;
  const pdf = await drawStatementPdf(reply);
  return {
    message: `Statement of ${known.partnername} from ${req.date_from} to ${req.date_to} rendered as PDF`,
    report: 'statement',
    partner: req.partner,
    side,
    format: 'pdf',
    filename: `statement-${req.partner}${side === 'vendor' ? '-vendor' : ''}-${req.date_from}-${req.date_to}.pdf`,
    content_type: 'application/pdf',
    content_base64: pdf.toString('base64'),
  };
}
