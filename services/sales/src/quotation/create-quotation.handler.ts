import { sales } from '@bo/contracts';
import { actor } from '../actor';
import { parseDateTime } from '@bo/kernel';
import { handler, isUniqueViolation, numberDocument, pendingNumber } from '@bo/runtime';
import {
  allowancesFromRequest,
  assertNotFenced,
  currentParties,
  documentDefaults,
  exchangeRateProblem,
  readSettings,
  requireLivePartner,
  requirePartnerRole,
  resolveCatalogLines,
  taxContextFor,
} from '@bo/billing';
import {
  documentTooLarge,
  documentTotals,
  lineTooLarge,
  MAX_LINE_TOTAL,
  priceLine,
  validUntilBeforeDate,
  type PricedLine,
} from './quotation-lines';
import { freezeQuotationParties } from './issued-snapshot';
import { quotationParties } from './quotation-document';
import { lineRow, toQuotationRecord } from './quotation.record';
import { quotationRefusals } from './quotation-refusals';
import { insertLines, insertQuotation } from './quotation.repository';
import { computeQuotation, quotationTaxColumns, taxParties } from './taxes';

const PREFIX: Record<sales.QuotationType, string> = { quotation: 'QUO-', proforma: 'PRO-', estimate: 'EST-' };
const UNIQUE_NUMBER = 'quotations_org_number_unique';

/**
 * The partner and catalog checks that ask other services come first, with no transaction open: no
 * connection is held while a slow partners or catalog service answers. The partner's delete fence
 * is checked in the transaction.
 */
export const createQuotationHandler = handler(sales.createQuotation, {
  gather: async (req, ctx) => {
    if (validUntilBeforeDate(req.quotation_date, req.valid_until))
      throw quotationRefusals.validUntilBeforeQuotationDate(req.valid_until, req.quotation_date.slice(0, 10));
    const resolved = await resolveCatalogLines(ctx, req.line_items ?? [], (i, field) => `line_items.${i}.${field}`);
    const lines = resolved.map(priceLine);
    checkSizes(lines);
    requirePartnerRole(await requireLivePartner(ctx, req.partner), req.quotation_type);
    // A quotation made as sent is issued at once: its parties are frozen with it.
    const parties = req.quotation_status === 'sent' ? await currentParties(ctx, req.partner) : null;
    // Dated before the transaction: the series' counter, taken last, is locked until the commit.
    const today = (await readSettings(ctx.db, ctx.orgId)).today();
    return { lines, parties, today };
  },
  apply: async (req, ctx, { lines, parties, today }) => {
    const supplied = req.quotation_number?.trim() || undefined;
    await assertNotFenced(ctx.db, ctx.orgId, req.partner);
    // Its currency from creation on: given, else the partner's, else the organization's; its taxes
    // with the organization's rounding policy, checked against the parties' VAT ids when it is sent.
    const defaults = await documentDefaults(ctx.db, ctx.orgId, req.partner);
    const currency = req.currency ?? defaults.currency;
    const rateProblem = exchangeRateProblem(currency, req.exchange_rate, defaults.accounting_currency);
    if (rateProblem) throw quotationRefusals.exchangeRateRefused(rateProblem);
    const allowances = allowancesFromRequest(req.allowances_charges);
    const sentParties = parties
      ? quotationParties({ quotation_type: req.quotation_type, partner_id: req.partner, currency }, parties.records, parties.partnerName)
      : null;
    const context = taxContextFor(defaults, currency, sentParties ? taxParties(sentParties) : null);
    const doc = computeQuotation({ currency, allowances_charges: allowances }, lines, context);
    let quotation = await insertQuotation(ctx.db, {
      org_id: ctx.orgId,
      quotation_number: supplied ?? pendingNumber(),
      quotation_type: req.quotation_type,
      status: req.quotation_status ?? 'draft',
      currency: doc.currency,
      exchange_rate: req.exchange_rate ?? null,
      partner_id: req.partner,
      quotation_date: parseDateTime(req.quotation_date),
      valid_until: req.valid_until,
      comments: req.comments || null,
      quotation_reference: req.quotation_reference || null,
      ...quotationTaxColumns(doc, { allowances_charges: allowances }, context),
      line_count: lines.length,
      created_by: actor(req, ctx),
      updated_by: actor(req, ctx),
    }).catch((err: unknown) => {
      if (supplied && isUniqueViolation(err, UNIQUE_NUMBER)) throw quotationRefusals.quotationNumberTaken(supplied);
      throw err;
    });
    const stored = await insertLines(
      ctx.db,
      lines.map((l, i) => lineRow(ctx.orgId, quotation.id, l, doc.lines[i]!, doc.minor_unit)),
    );
    if (parties && sentParties) {
      const frozen = sentParties;
      await freezeQuotationParties(ctx.db, quotation, frozen, defaults.accounting_currency);
      quotation = { ...quotation, currency: frozen.currency || null, accounting_currency: defaults.accounting_currency };
    }
    // Numbered last, so the counter is locked for this statement and the recorded reply's alone.
    if (!supplied) {
      const quotation_number = await numberDocument(ctx.db, ctx.orgId, PREFIX[req.quotation_type], {
        table: 'quotations',
        column: 'quotation_number',
        id: quotation.id,
      });
      quotation = { ...quotation, quotation_number };
    }
    return {
      message: 'Quotation created successfully',
      quotation: toQuotationRecord(quotation, stored, today),
    };
  },
});

function checkSizes(lines: PricedLine[]): void {
  const tooLarge = lines.flatMap((l, i) => (lineTooLarge(l.amounts) ? [i] : []));
  if (tooLarge.length) throw quotationRefusals.lineItemTotalsTooLarge(tooLarge, MAX_LINE_TOTAL.toFixed());
  if (documentTooLarge(documentTotals(lines.map((l) => l.amounts)))) throw quotationRefusals.quotationTotalTooLarge();
}
