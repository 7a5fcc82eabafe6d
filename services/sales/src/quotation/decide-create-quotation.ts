import type { sales, ReplyOf, RequestOf } from '@bo/contracts';
import { parseDateTime, type LineTaxes } from '@bo/kernel';
import { allowancesFromRequest, exchangeRateProblem, partiesToStore, taxContextFor, type DocumentDefaults } from '@bo/billing';
import type { PartiesNow } from './quotation-rules';
import { quotationParties } from './quotation-document';
import { documentTooLarge, documentTotals, lineTooLarge, MAX_LINE_TOTAL, type PricedLine } from './quotation-lines';
import { lineRow, toQuotationRecord, type LineRow, type QuotationRow } from './quotation.record';
import { quotationRefusals } from './quotation-refusals';
import { computeQuotation, quotationTaxRow, taxParties } from './taxes';

export type CreateQuotationRequest = RequestOf<typeof sales.createQuotation>;
export type CreateQuotationReply = ReplyOf<typeof sales.createQuotation>;

/** The series a quotation of each type is numbered in, by its prefix. */
export const NUMBER_PREFIX: Record<sales.QuotationType, string> = { quotation: 'QUO-', proforma: 'PRO-', estimate: 'EST-' };

/** What a create draws before its store: the ids the quotation and its lines take, and the time it is made (the database's). */
export interface NewQuotationDrawn {
  quotationId: number;
  lineIds: number[];
  now: Date;
}

/**
 * What creating a quotation decides on, gathered before its store: its lines checked against the
 * catalog and priced, the defaults of its organization and partner (currency, tax policy, time
 * zone), the parties as the partners service holds them when it is created as sent (else null),
 * the organization's today, and what the load drew.
 */
export interface CreateQuotationState {
  lines: PricedLine[];
  defaults: DocumentDefaults;
  parties: PartiesNow;
  today: string;
  drawn: NewQuotationDrawn;
}

/**
 * A new quotation as decided: its row and its lines with every column they are stored with (ids
 * and time as drawn), how it is numbered (the number the client supplied, else the next of its
 * type's gapless series, `series`, taken by the statement that stores it), and the logo its frozen
 * parties show. The row's `quotation_number` is the supplied one, or empty until the series gives it.
 */
export interface NewQuotation {
  row: QuotationRow;
  lines: Array<LineRow & { created_at: Date }>;
  supplied: string | undefined;
  series: string;
  logo: { sha256: string; png: Buffer } | null;
}

/** What a new quotation starts with where the request says nothing: the schema's defaults, written out. */
const NEW_QUOTATION_STARTS = {
  invoice_id: null,
  invoicenumber: null,
  invoicetype: null,
  converted_at: null,
  convert_key: null,
  conversion_attempted_at: null,
  convert_invoicetype: null,
  convert_user: null,
  conversion_attempts: 0,
  conversion_lease_until: null,
  converted_invoice: null,
  issued_parties: null,
  accounting_currency: null,
} satisfies Partial<QuotationRow>;

/**
 * New lines too large to store, refused before anything is asked of the partner: a line whose own
 * total reaches MAX_LINE_TOTAL (each named), or lines adding up to a quotation total too large.
 */
export function refuseOversizedLines(lines: readonly PricedLine[]): void {
  const tooLarge = lines.flatMap((l, i) => (lineTooLarge(l.amounts) ? [i] : []));
  if (tooLarge.length) throw quotationRefusals.lineItemTotalsTooLarge(tooLarge, MAX_LINE_TOTAL.toFixed());
  if (documentTooLarge(documentTotals(lines.map((l) => l.amounts)))) throw quotationRefusals.quotationTotalTooLarge();
}

/**
 * Decides a new quotation: its currency from creation on is the one given, else the partner's, else
 * the organization's; an exchange rate must fit it and the organization's accounting currency; its
 * taxes are the kernel's calculation of its lines and allowances under the organization's rounding
 * policy, checked against the parties' VAT ids when it is created as sent, which issues it: its
 * parties are frozen with it, in their currency, beside the organization's accounting currency.
 * Pure: a refusal is thrown, by name.
 */
export function decideCreateQuotation(
  req: CreateQuotationRequest,
  state: CreateQuotationState,
  who: { orgId: number; actor: string | null },
): NewQuotation {
  const { defaults, drawn } = state;
  const currency = req.currency ?? defaults.currency;
  const rateProblem = exchangeRateProblem(currency, req.exchange_rate, defaults.accounting_currency);
  if (rateProblem) throw quotationRefusals.exchangeRateRefused(rateProblem);
  const allowances = allowancesFromRequest(req.allowances_charges);
  const sent = state.parties
    ? quotationParties(
        { quotation_type: req.quotation_type, partner_id: req.partner, currency },
        state.parties.records,
        state.parties.partnerName,
      )
    : null;
  const context = taxContextFor(defaults, currency, sent ? taxParties(sent) : null);
  const doc = computeQuotation({ currency, allowances_charges: allowances }, state.lines, context);
  const frozen = sent && partiesToStore(sent);
  const supplied = req.quotation_number?.trim() || undefined;
  const row: QuotationRow = {
    ...NEW_QUOTATION_STARTS,
    id: drawn.quotationId,
    org_id: who.orgId,
    quotation_number: supplied ?? '',
    quotation_type: req.quotation_type,
    status: req.quotation_status ?? 'draft',
    currency: doc.currency,
    exchange_rate: req.exchange_rate ?? null,
    partner_id: req.partner,
    quotation_date: parseDateTime(req.quotation_date),
    valid_until: req.valid_until,
    comments: req.comments || null,
    quotation_reference: req.quotation_reference || null,
    ...quotationTaxRow(doc, { allowances_charges: allowances }, context),
    line_count: state.lines.length,
    ...(sent && frozen
      ? { issued_parties: frozen.kept, currency: sent.currency || null, accounting_currency: defaults.accounting_currency }
      : {}),
    created_by: who.actor,
    updated_by: who.actor,
    created_at: drawn.now,
    updated_at: drawn.now,
  };
  return {
    row,
    lines: state.lines.map((l, i) => ({
      id: drawn.lineIds[i] as number,
      ...lineRow(who.orgId, drawn.quotationId, l, doc.lines[i] as LineTaxes, doc.minor_unit),
      created_at: drawn.now,
    })),
    supplied,
    series: NUMBER_PREFIX[req.quotation_type],
    logo: frozen ? frozen.logo : null,
  };
}

/** The reply to a create: the quotation as stored, under `quotationNumber` (the supplied one, the series', or FILLED_IN for the store to fill). */
export function quotationCreatedReply(created: NewQuotation, quotationNumber: string, today: string): CreateQuotationReply {
  const lines = created.lines.map(({ created_at: _made, ...line }) => line);
  return {
    message: 'Quotation created successfully',
    quotation: toQuotationRecord({ ...created.row, quotation_number: quotationNumber }, lines, today),
  };
}
