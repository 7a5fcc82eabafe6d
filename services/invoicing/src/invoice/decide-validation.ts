import type { partners } from '@bo/contracts';
import { dec, formatDate, invoicePaymentReference, Money, toNumber, type Dec, type LineTaxes, type TaxDocument } from '@bo/kernel';
import {
  documentTaxColumns,
  lineAmountColumns,
  partiesToStore,
  taxContextFor,
  taxParties,
  type DocumentParties,
  type OrganizationTaxPolicy,
} from '@bo/billing';
import { accountsFor, invoiceEntryLines, tradeMove, type Conversion, type JournalLine } from '../domain/journal';
import { lockDateRefusal } from '../domain/lock-date';
import { stockedQuantity } from '../domain/restock';
import { creditLimitRefusal, type CreditExposure } from './credit-limit-check';
import { creditableRefusal, creditedCurrency, restockRefusal, type CreditedFacts } from './credit-note-link';
import { statusOf, type InvoiceRow, type LineRow } from './invoice.record';
import { computeInvoice } from './invoice.writer';
import { invoiceParties, type IssuedParties } from './issued-snapshot';
import type { EntryHeader } from './journal.repository';
import { selfAssessed } from './taxes';
import { invoiceRefusals } from './invoice-refusals';

/** What validating a draft asks of other services before its transaction (validationFacts). */
export interface ValidationFacts {
  checksCredit: boolean;
  parties: { records: DocumentParties; partnerName: string | null; credit: partners.PartnerCredit | null };
  notStocked: string[];
  /** The date it posts on, which never changes. */
  invoiceDate: string;
}

/** The draft as its transaction reads it first: locked, with its lines and the organization's settings held. */
export interface ValidationDraft {
  invoice: InvoiceRow;
  lines: LineRow[];
  /** The organization's lock date (`YYYY-MM-DD`), null when the books are open. */
  lockDate: string | null;
  /** The organization's today: the status a refusal names. */
  today: string;
  /** How the invoice is refused by name: `invoice INV-1`, `bill B-7`. */
  named: string;
  /**
   * The request's field that dates the posting, which a lock-date refusal names: a reminder run's
   * `as_of` dates its fee invoices. Absent, the date is the invoice's own, no field of the request,
   * and the refusal names `lock_date`.
   */
  dateField?: string;
}

/**
 * Everything validating a draft decides on (decideValidation): the draft, what was asked elsewhere
 * before the transaction, the books' policy, and what only some drafts need, each loaded only then.
 */
export interface ValidationState extends ValidationDraft {
  facts: ValidationFacts;
  policy: OrganizationTaxPolicy;
  /** For a credit note that credits an invoice: that invoice, locked, with what it is judged by. */
  credited: CreditedFacts | null;
  /** The organization's rate for the invoice's currency on its date: loaded when neither it nor the invoice has one set aside. */
  tableRate: string | null;
  /** For a sale checked against a partner with a credit limit: what the check weighs. */
  exposure: CreditExposure | null;
}

/** The line's figures as issued, with what it moves in stock. */
export interface ValidatedLine {
  id: number;
  tax_category: string;
  subtotal: string;
  tax_amount: string;
  total: string;
  stocked: string;
}

/** What validating a draft writes: the invoice's issued columns, its lines, its journal entry, and what its event tells. */
export interface ValidationEffects {
  /** The invoice's new columns (status, totals, frozen parties, payment reference, rate); `validated_at` (and `paid_at` when settled) are the store's now(). */
  invoice: Record<string, string | null>;
  /** The parties as issued: stored with their logo by content (storedParties). */
  issuedParties: IssuedParties;
  /** A zero-total document has nothing to collect: it is paid as it is posted. */
  settled: boolean;
  lines: ValidatedLine[];
  entry: { header: EntryHeader; lines: JournalLine[] };
  currency: string | null;
  /** The total in the accounting currency as the trade line books it. */
  accountingTotal: number;
  tradeDelta: number;
}

/**
 * The currency a draft is issued in: a credit note's is the invoice's it credits (or refused when it
 * names another), else its own, the partner's, or the organization's default, as invoiceParties
 * decides it. Null when none of them has one.
 */
export function validationCurrency(
  invoice: InvoiceRow,
  credited: Pick<CreditedFacts, 'invoice'> | null,
  parties: ValidationFacts['parties'],
): string | null {
  return issuedPartiesOf(invoice, credited, parties).currency || null;
}

/** Whether the journal needs the organization's rate table for a document in `currency` (neither the invoice nor its currency settles it). */
export function needsTableRate(invoice: Pick<InvoiceRow, 'exchange_rate'>, currency: string | null, accounting: string | null): boolean {
  return currency !== null && accounting !== null && currency !== accounting && invoice.exchange_rate === null;
}

/**
 * Refuses what no loading beyond the draft can save: a posting on or before the lock date, a
 * document that is no longer a draft or proforma, one with no lines. Null when the draft may go on
 * to be decided; checked first, so nothing more is loaded or locked for a refused draft.
 */
export function draftRefusal(draft: ValidationDraft, invoiceDate: string) {
  const { invoice } = draft;
  const locked = lockDateRefusal(draft.lockDate, invoiceDate, draft.dateField ?? 'lock_date', draft.named);
  if (locked) return invoiceRefusals.lockDatePassed(locked);
  if (invoice.invoicestatus !== 'draft' && invoice.invoicestatus !== 'proforma') {
    return invoiceRefusals.validationOfIssued(invoice.invoicenumber, statusOf(invoice, draft.today));
  }
  if (draft.lines.length === 0) return invoiceRefusals.validationWithoutLines(invoice.invoicenumber);
  return null;
}

/**
 * Decides validating (posting) a draft or proforma. Pure: a refusal is thrown (the lock date, the
 * status, no lines, a credit note's currency, a missing exchange rate, the credit limit, a credit
 * beyond its invoice's total, goods returned beyond what were delivered); the effects are what
 * storeValidation writes. Refusals come in that order.
 *
 * The document is issued with the organization's rounding policy now, which it then keeps, and its
 * taxes are checked against the VAT ids the parties state (AE and K need both). A credit note is
 * judged against the invoice it credits, in that invoice's currency.
 */
export function decideValidation(state: ValidationState): ValidationEffects {
  const { invoice, lines: stored, facts, policy, credited } = state;
  const refused = draftRefusal(state, facts.invoiceDate);
  if (refused) throw refused;

  const issuedParties = issuedPartiesOf(invoice, credited, facts.parties);
  const currency = issuedParties.currency || null;
  const context = taxContextFor(policy, currency, taxParties(issuedParties));
  const doc = computeInvoice({ currency, allowances_charges: invoice.allowances_charges }, stored, context);
  const selfAssessedTax = selfAssessed(invoice.invoicetype, stored, invoice.allowances_charges, doc);
  const conversion = conversionOf(invoice, currency, policy.accounting_currency, state.tableRate);
  const total = doc.totals.payable_amount.toFixed();

  // Weighed with the invoice locked, so its total cannot grow between the check and the posting.
  if (facts.checksCredit && facts.parties.credit) {
    const refusal = creditLimitRefusal(
      { partner_id: invoice.partner_id, invoicetotal: total },
      facts.parties.credit,
      { currency, rate: conversion?.rate ?? null, accounting: policy.accounting_currency, today: facts.invoiceDate },
      state.exposure,
    );
    if (refusal) throw refusal;
  }
  // A credit note never takes its invoice's validated credit notes past the invoice's total, nor
  // returns more goods than it delivered.
  if (credited) {
    const creditable = creditableRefusal({ invoicenumber: invoice.invoicenumber, invoicetotal: total, currency }, credited);
    if (creditable) throw creditable;
    const restock = restockRefusal(invoice, stored, credited, new Set(facts.notStocked));
    if (restock) throw restock;
  }

  const accounts = accountsFor(invoice.invoicetype, invoice);
  const entryLines = invoiceEntryLines(invoice.invoicetype, entryFigures(doc, selfAssessedTax), accounts, conversion);
  const settled = dec(total).isZero();
  const { total: documentTotal, ...taxColumns } = documentTaxColumns(doc, invoice.allowances_charges, context);
  return {
    invoice: {
      ...taxColumns,
      invoicetotal: documentTotal,
      invoicestatus: settled ? 'paid' : 'open',
      // Issued: its currency and the organization's accounting currency never change from here on.
      currency,
      accounting_currency: policy.accounting_currency,
      // What the customer pays it with (docs/invoicing.md "Payment references"); only sales are collected.
      ...(invoice.invoicetype === 'invoiceout' ? { payment_reference: invoicePaymentReference(invoice.id) } : {}),
      // The table's rate it was posted at, kept with the issued invoice.
      ...(conversion?.taken ? { exchange_rate: state.tableRate } : {}),
    },
    issuedParties,
    settled,
    lines: stored.map((line, i) => ({
      id: line.id,
      ...lineAmountColumns(doc.lines[i] as LineTaxes, doc.minor_unit),
      stocked: stockedQuantity(invoice, line).toFixed(),
    })),
    entry: {
      header: {
        org_id: invoice.org_id,
        invoice_id: invoice.id,
        kind: 'invoice',
        journalname: accounts.journal,
        journaldate: facts.invoiceDate,
        reference: invoice.invoicenumber,
      },
      lines: entryLines,
    },
    currency,
    accountingTotal: toNumber(accountingTotal(doc.totals.payable_amount, currency, conversion, policy.accounting_currency)),
    tradeDelta: toNumber(tradeMove(entryLines)),
  };
}

/** The parties as the draft is issued with them, in a credit note's invoice's currency. */
function issuedPartiesOf(invoice: InvoiceRow, credited: Pick<CreditedFacts, 'invoice'> | null, parties: ValidationFacts['parties']) {
  const inCurrency = credited ? { ...invoice, currency: creditedCurrency(invoice, credited.invoice) } : invoice;
  return invoiceParties(inCurrency, parties.records, parties.partnerName);
}

/** The kernel's figures as the journal posts them. */
function entryFigures(doc: TaxDocument, selfAssessedTax: ReturnType<typeof selfAssessed>) {
  return {
    payable: doc.totals.payable_amount,
    breakdown: doc.breakdown,
    rounding_amount: doc.totals.rounding_amount,
    self_assessed: selfAssessedTax,
    places: doc.minor_unit,
  };
}

/**
 * How the journal converts a document in another currency than the organization's: at the
 * invoice's `exchange_rate`, else at the organization's rate for the currency on the invoice date
 * (the latest on or before it, docs/invoicing.md "Exchange rates"), which the invoice then keeps.
 * With neither the validation is refused by name.
 */
function conversionOf(
  invoice: InvoiceRow,
  currency: string | null,
  accounting: string | null,
  tableRate: string | null,
): (Conversion & { taken: boolean }) | null {
  if (currency === null || accounting === null || currency === accounting) return null;
  if (invoice.exchange_rate !== null) return { rate: invoice.exchange_rate, currency: accounting, taken: false };
  if (tableRate === null) {
    throw invoiceRefusals.exchangeRateMissing(currency, accounting, formatDate(invoice.invoicedatetime) as string);
  }
  return { rate: tableRate, currency: accounting, taken: true };
}

/** The total in the accounting currency as the journal's trade line books it: converted at the document's rate, or as it is. */
function accountingTotal(payable: Dec, currency: string | null, conversion: Conversion | null, accounting: string | null): Dec {
  if (!conversion || currency === null || accounting === null) return payable;
  return Money.of(payable, currency).convert(conversion.rate, accounting).amount;
}

/**
 * What a validation's load draws besides what it decides on: the id of the journal entry it posts,
 * the transaction's timestamp (what the store's `now()` writes), and the version the invoice takes
 * from this transaction's change (the trigger counts one per transaction: migration 017).
 */
export interface ValidationDrawn {
  entryId: number;
  now: Date;
  version: number;
}

/**
 * The invoice as a validation leaves it (storeValidation), pure: its issued columns, stamped at the
 * transaction's time, at the version the transaction gives it.
 */
export function postedInvoice(invoice: InvoiceRow, effects: ValidationEffects, drawn: ValidationDrawn): InvoiceRow {
  return {
    ...invoice,
    ...(effects.invoice as Partial<InvoiceRow>),
    issued_parties: partiesToStore(effects.issuedParties).kept,
    validated_at: drawn.now,
    paid_at: effects.settled ? drawn.now : invoice.paid_at,
    updated_at: drawn.now,
    version: drawn.version,
  };
}
