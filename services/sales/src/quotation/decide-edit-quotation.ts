import type { sales, ReplyOf, RequestOf } from '@bo/contracts';
import { formatDate, formatDateTime, toNumber } from '@bo/kernel';
import { allowancesFromRequest, documentTaxFields, exchangeRateProblem, partiesToStore, taxContextFor } from '@bo/billing';
import { quotationParties } from './quotation-document';
import { validUntilBeforeDate } from './quotation-lines';
import { checkAddLine, checkHeaderEdit, checkStatusMove, effectiveStatus } from './quotation-status';
import { conversionUnfinished, enforce, loadedLines, statusOf, type PartiesNow, type QuotationState } from './quotation-rules';
import type { QuotationRow } from './quotation.record';
import { quotationRefusals } from './quotation-refusals';
import { changedLineAmounts, computeQuotation, quotationTaxRow, taxParties, type LineAmountsChange } from './taxes';

export type EditQuotationRequest = RequestOf<typeof sales.editQuotation>;
export type EditQuotationReply = ReplyOf<typeof sales.editQuotation>;

/**
 * An edit as decided: the quotation's columns that change (as its row holds them), the logo its
 * parties frozen now show (to keep once by its content), the stored lines whose amounts move when it
 * is computed again, and the reply, which tells the quotation as these leave it.
 */
export interface QuotationEdit {
  orgId: number;
  quotationId: number;
  header: Partial<QuotationRow>;
  logo: { sha256: string; png: Buffer } | null;
  changedLines: LineAmountsChange[];
  reply: EditQuotationReply;
}

/**
 * Whether an edit may compute the quotation again (its allowances, its rate, a move to sent or back
 * to draft), so that its load reads the lines too.
 */
export function editNeedsLines(req: EditQuotationRequest): boolean {
  return (
    req.allowances_charges !== undefined ||
    req.exchange_rate !== undefined ||
    req.quotation_status === 'sent' ||
    req.quotation_status === 'draft'
  );
}

/**
 * Decides an edit: the header fields given and a status move the state machine allows. An empty
 * quotation_number means "keep it"; empty comments or reference clear them. An edit naming no field
 * still writes who touched it last, so a closed quotation refuses it too; a quotation being
 * converted takes no change at all until the conversion ends. Allowances, charges and the exchange
 * rate change the amounts: only while lines may be added. Sending a draft issues it: its parties
 * (`parties`, asked of the partners service) are frozen with the move, unless it holds frozen ones,
 * with the organization's accounting currency; back to draft, they are dropped. Either move, or a
 * change of the amounts, computes the quotation again with the organization's policy now (a
 * quotation being sent checked against its parties' VAT ids). Pure: a refusal is thrown, by name; a
 * number another quotation has is the store's to find (the unique index).
 */
export function decideEditQuotation(
  state: QuotationState,
  req: EditQuotationRequest,
  parties: PartiesNow,
  actor: string | null,
): QuotationEdit {
  const q = state.quotation;
  const number = req.quotation_number?.trim() || undefined;
  const current = statusOf(q, state.today);
  const headerChange =
    number !== undefined || req.valid_until !== undefined || req.comments !== undefined || req.quotation_reference !== undefined;
  if (headerChange || req.quotation_status === undefined) enforce(checkHeaderEdit(current), q);
  if (conversionUnfinished(q)) enforce(checkHeaderEdit(current, true), q);
  if (req.quotation_status !== undefined) enforce(checkStatusMove(current, req.quotation_status), q);
  const taxChange = req.allowances_charges !== undefined || req.exchange_rate !== undefined;
  if (taxChange) enforce(checkAddLine(current, conversionUnfinished(q)), q);
  if (req.valid_until !== undefined && validUntilBeforeDate(formatDateTime(q.quotation_date) as string, req.valid_until))
    throw quotationRefusals.validUntilBeforeQuotationDate(req.valid_until, String(formatDate(q.quotation_date)));

  const changes: Partial<QuotationRow> = {};
  if (number !== undefined) changes.quotation_number = number;
  if (req.valid_until !== undefined) changes.valid_until = req.valid_until;
  if (req.comments !== undefined) changes.comments = req.comments || null;
  if (req.quotation_reference !== undefined) changes.quotation_reference = req.quotation_reference || null;
  if (req.quotation_status !== undefined && req.quotation_status !== current)
    changes.status = req.quotation_status as QuotationRow['status'];
  const sending = changes.status === 'sent' && q.status === 'draft';
  const frozen = sending && parties ? quotationParties(q, parties.records, parties.partnerName) : null;
  let logo: QuotationEdit['logo'] = null;
  // A quotation that holds frozen parties keeps them (freezeParties: the first freeze wins).
  if (frozen && q.issued_parties === null) {
    const stored = partiesToStore(frozen);
    changes.issued_parties = stored.kept;
    changes.currency = frozen.currency || null;
    changes.accounting_currency = state.policy.accounting_currency;
    logo = stored.logo;
  }
  if (changes.status === 'draft') {
    changes.issued_parties = null;
    changes.accounting_currency = null;
  }
  if (req.exchange_rate !== undefined) {
    const problem = exchangeRateProblem(q.currency, req.exchange_rate, state.policy.accounting_currency);
    if (problem) throw quotationRefusals.exchangeRateRefused(problem);
    changes.exchange_rate = req.exchange_rate;
  }
  const update: Partial<QuotationRow> = { ...changes, updated_by: actor };

  let header = update;
  let changedLines: LineAmountsChange[] = [];
  if (taxChange || sending || changes.status === 'draft') {
    // Computed again: with the allowances asked, and with the organization's policy now (a quotation
    // being sent keeps it, checked against the parties' VAT ids).
    const base = frozen ? { ...q, currency: frozen.currency || q.currency } : q;
    const context = taxContextFor(state.policy, base.currency, frozen ? taxParties(frozen) : null);
    const withAllowances =
      req.allowances_charges === undefined ? base : { ...base, allowances_charges: allowancesFromRequest(req.allowances_charges) };
    const lines = loadedLines(state);
    const doc = computeQuotation(withAllowances, lines, context);
    changedLines = changedLineAmounts(lines, doc);
    header = { ...quotationTaxRow(doc, withAllowances, context), ...update };
  }

  const updated: QuotationRow = { ...q, ...header };
  return {
    orgId: q.org_id,
    quotationId: q.id,
    header,
    logo,
    changedLines,
    reply: {
      message: 'Quotation updated successfully',
      quotation: {
        id: updated.id,
        quotation_number: updated.quotation_number,
        quotation_status: effectiveStatus(updated.status, formatDate(updated.valid_until) as string, state.today),
        valid_until: formatDate(updated.valid_until) as string,
        comments: updated.comments,
        quotation_reference: updated.quotation_reference,
        subtotal: toNumber(updated.subtotal),
        tax_amount: toNumber(updated.tax_amount),
        quotation_total: toNumber(updated.total),
        ...documentTaxFields(updated),
      },
    },
  };
}
