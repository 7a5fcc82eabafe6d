import { sales } from '@bo/contracts';
import { actor } from '../actor';
import { formatDate, formatDateTime, toNumber } from '@bo/kernel';
import { handler, isUniqueViolation, type Knex } from '@bo/runtime';
import {
  allowancesFromRequest,
  currentParties,
  documentDefaults,
  documentTaxFields,
  exchangeRateProblem,
  readSettings,
  type SettingsReading,
  type TaxContext,
  taxContextFor,
} from '@bo/billing';
import { freezeQuotationParties } from './issued-snapshot';
import { quotationParties } from './quotation-document';
import { validUntilBeforeDate } from './quotation-lines';
import { checkAddLine, checkHeaderEdit, checkStatusMove, effectiveStatus } from './quotation-status';
import { findQuotation, linesOf, updateQuotation } from './quotation.repository';
import { conversionUnfinished, enforce, statusOf } from './quotation-rules';
import type { QuotationRow } from './quotation.record';
import { quotationRefusals } from './quotation-refusals';
import { computeQuotation, storeQuotationTaxes, taxParties } from './taxes';

/**
 * Changes the header fields given and moves the status as the state machine allows. Empty
 * quotation_number means "keep it"; empty comments or reference clear them. Sending a draft issues
 * it: its parties are asked of the partners service first, with no transaction open, and frozen
 * with the move; back to draft, they are dropped (a draft shows them as they are now).
 */
export const editQuotationHandler = handler(sales.editQuotation, {
  gather: async (req, ctx) => {
    // Neither the partner nor the organization of a quotation ever changes, so the unlocked read names whom to ask.
    if (req.quotation_status !== 'sent') return { parties: null };
    return { parties: await currentParties(ctx, (await findQuotation(ctx.db, ctx.orgId, req.quotation_id)).partner_id) };
  },
  apply: async (req, ctx, { parties }) => {
    const number = req.quotation_number?.trim() || undefined;
    const q = await findQuotation(ctx.db, ctx.orgId, req.quotation_id, { lock: true });
    const settings = await readSettings(ctx.db, ctx.orgId);
    const now = settings.today();
    const current = statusOf(q, now);
    const headerChange =
      number !== undefined || req.valid_until !== undefined || req.comments !== undefined || req.quotation_reference !== undefined;
    // An edit naming no field still writes who touched it last, so a closed quotation refuses it too.
    if (headerChange || req.quotation_status === undefined) enforce(checkHeaderEdit(current), q);
    // A quotation being converted takes no change at all until the conversion ends.
    if (conversionUnfinished(q)) enforce(checkHeaderEdit(current, true), q);
    if (req.quotation_status !== undefined) enforce(checkStatusMove(current, req.quotation_status), q);
    // Allowances, charges and the exchange rate change the amounts: only while lines may be added.
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
    if (frozen) await freezeQuotationParties(ctx.db, q, frozen, settings.taxPolicy.accounting_currency);
    if (changes.status === 'draft') {
      changes.issued_parties = null;
      changes.accounting_currency = null;
    }
    if (req.exchange_rate !== undefined) {
      const problem = exchangeRateProblem(q.currency, req.exchange_rate, settings.taxPolicy.accounting_currency);
      if (problem) throw quotationRefusals.exchangeRateRefused(problem);
      changes.exchange_rate = req.exchange_rate;
    }
    const update = { ...changes, updated_by: actor(req, ctx) };
    const row = await unique(number, async () =>
      taxChange || sending || changes.status === 'draft'
        ? // Computed again: with the allowances asked, and with the organization's policy now (a quotation
          // being sent keeps it, checked against the parties' VAT ids).
          await recompute(
            ctx.db,
            ctx.orgId,
            settings,
            frozen ? { ...q, currency: frozen.currency || q.currency } : q,
            req.allowances_charges,
            frozen ? taxParties(frozen) : null,
            update,
          )
        : await updateQuotation(ctx.db, q.id, update),
    );
    const updated = row;
    return {
      message: 'Quotation updated successfully',
      quotation: {
        id: updated.id,
        quotation_number: updated.quotation_number,
        quotation_status: effectiveStatus(updated.status, formatDate(updated.valid_until) as string, now),
        valid_until: formatDate(updated.valid_until) as string,
        comments: updated.comments,
        quotation_reference: updated.quotation_reference,
        subtotal: toNumber(updated.subtotal),
        tax_amount: toNumber(updated.tax_amount),
        quotation_total: toNumber(updated.total),
        ...documentTaxFields(updated),
      },
    };
  },
});

/** The update, with a clash on the quotation number answered as the duplicate it is. */
async function unique(number: string | undefined, run: () => Promise<QuotationRow>): Promise<QuotationRow> {
  try {
    return await run();
  } catch (err) {
    if (isUniqueViolation(err, 'quotations_org_number_unique')) throw quotationRefusals.quotationNumberTaken(number);
    throw err;
  }
}

async function recompute(
  db: Knex.Transaction,
  orgId: number,
  settings: SettingsReading,
  q: QuotationRow,
  asked: Parameters<typeof allowancesFromRequest>[0] | undefined,
  parties: TaxContext['parties'],
  update: Record<string, unknown>,
): Promise<QuotationRow> {
  const policy = await documentDefaults(db, orgId, q.partner_id, settings);
  const context = taxContextFor(policy, q.currency, parties);
  const withAllowances = asked === undefined ? q : { ...q, allowances_charges: allowancesFromRequest(asked) };
  const lines = await linesOf(db, q.id);
  const doc = computeQuotation(withAllowances, lines, context);
  return storeQuotationTaxes(db, withAllowances, lines, doc, context, update);
}
