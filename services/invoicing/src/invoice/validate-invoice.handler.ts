import { invoicing } from '@bo/contracts';
import { dec, formatDate, formatDateTime, invoicePaymentReference, Money, toNumber, type Dec, type TaxDocument } from '@bo/kernel';
import {
  handler,
  invalidState,
  notFound,
  recordEvent,
  validationFailed,
  type ApplyContext,
  type HandlerContext,
  type Knex,
} from '@bo/runtime';
import { currentParties, organizationTaxPolicy, organizationToday, taxContextFor, taxParties } from '@bo/billing';
import { accountsFor, invoiceEntryLines, tradeMove, type Conversion } from '../domain/journal';
import { findExchangeRate } from '../exchange-rate/exchange-rate.repository';
import { assertWithinCreditLimit } from './credit-limit-check';
import {
  assertCreditable,
  assertRestockable,
  creditedCurrency,
  lockCreditedInvoice,
  productsNotStocked,
  storeStocked,
} from './credit-note-link';
import { settleCreditedInvoice } from './credit-note-settlement';
import { dueOf, eventRef, statusOf, type InvoiceRow } from './invoice.record';
import { findInvoice, linesOf } from './invoice.repository';
import { assertAfterLockDate } from './lock-date';
import { invoiceParties, issuedColumns } from './issued-snapshot';
import { computeInvoice, storeTaxes } from './invoice.writer';
import { postEntry } from './journal.repository';
import { selfAssessed } from './taxes';

/**
 * The partner's credit and both parties' data (frozen with the invoice) are asked of the partners
 * service first, before any lock is taken or connection held, so a slow partners service cannot
 * stall other writes or drain the pool.
 */
export const validateInvoiceHandler = handler(invoicing.validateInvoice, {
  gather: async (req, ctx) => {
    // Neither type nor partner of an invoice ever changes, so the unlocked read decides whether to ask.
    const unlocked = await findInvoice(ctx.db, ctx.orgId, req.id);
    const facts = await validationFacts(ctx, unlocked, { id: unlocked.id }, req.override_credit_limit);
    return { ...facts, number: unlocked.invoicenumber };
  },
  apply: async (req, ctx, facts) => {
    const invoice = await postInvoice(ctx, req.id, facts, `invoice ${facts.number}`);
    return { message: `Invoice ${invoice.invoicenumber} validated successfully`, invoice };
  },
});

/** What validating a draft asks of other services before its transaction (validationFacts). */
export interface ValidationFacts {
  checksCredit: boolean;
  parties: Awaited<ReturnType<typeof currentParties>>;
  notStocked: string[];
  /** The date it posts on, which never changes. */
  invoiceDate: string;
}

/**
 * What validating a draft asks elsewhere: the partner's credit (a sale's, unless overridden), both
 * parties as they are now, and the products a restocking credit note returns that catalog keeps no
 * stock of. For a stored draft (the validate operation) or one an import is about to store (its
 * lines' products given), from the fields that never change on a draft: its type, partner and date.
 */
export async function validationFacts(
  ctx: HandlerContext,
  draft: Pick<InvoiceRow, 'invoicetype' | 'partner_id' | 'invoicedatetime' | 'credits_invoice_id' | 'restock'>,
  catalogLines: Parameters<typeof productsNotStocked>[2],
  overrideCreditLimit: boolean | undefined,
): Promise<ValidationFacts> {
  const checksCredit = needsCreditCheck(draft.invoicetype, overrideCreditLimit);
  const parties = await currentParties(ctx, draft.partner_id, { credit: checksCredit });
  if (checksCredit && !parties.credit) throw notFound('Partner', draft.partner_id);
  const notStocked = [...(await productsNotStocked(ctx, draft, catalogLines))];
  return { checksCredit, parties, notStocked, invoiceDate: formatDate(draft.invoicedatetime) as string };
}

/**
 * Validates (posts) a draft or proforma with what validationFacts gathered, in the caller's
 * transaction: the validate operation, and an import with `validate: true` right after it stored its
 * bill. `named` is the invoice as the lock date's refusal names it. The posted invoice as the
 * validate operation answers it.
 */
export async function postInvoice(ctx: ApplyContext, id: number, facts: ValidationFacts, named: string) {
  const { checksCredit, parties, notStocked, invoiceDate } = facts;
  // Before the invoice's lock, as every posting takes the lock date's row first. The date is the
  // invoice's own, no field of this request: the refusal names `lock_date`.
  await assertAfterLockDate(ctx.db, ctx.orgId, invoiceDate, 'lock_date', named);
  const invoice = await findInvoice(ctx.db, ctx.orgId, id, { lock: true });
  if (invoice.invoicestatus !== 'draft' && invoice.invoicestatus !== 'proforma') {
    throw invalidState(
      `Invoice ${invoice.invoicenumber} cannot be validated: it is ${statusOf(invoice, await organizationToday(ctx.db, ctx.orgId))}; only draft or proforma invoices can be validated`,
    );
  }
  const stored = (await linesOf(ctx.db, [invoice.id])).get(invoice.id) ?? [];
  if (stored.length === 0) throw invalidState(`Invoice ${invoice.invoicenumber} cannot be validated: it has no lines`);

  // A credit note is judged against the invoice it credits, locked from here on: in its currency.
  const credited = await lockCreditedInvoice(ctx.db, invoice);
  const inCurrency = credited ? { ...invoice, currency: creditedCurrency(invoice, credited) } : invoice;

  // Issued with the organization's rounding policy now, which the invoice then keeps, and checked
  // against the VAT ids the parties state (AE and K need both).
  const issuedParties = invoiceParties(inCurrency, parties.records, parties.partnerName);
  const policy = await organizationTaxPolicy(ctx.db, ctx.orgId);
  const currency = issuedParties.currency || null;
  const context = taxContextFor(policy, currency, taxParties(issuedParties));
  const doc = computeInvoice({ currency, allowances_charges: invoice.allowances_charges }, stored, context);
  const selfAssessedTax = selfAssessed(invoice.invoicetype, stored, invoice.allowances_charges, doc);
  const conversion = await conversionOf(ctx.db, ctx.orgId, invoice, currency, policy.accounting_currency);
  // The amounts as issued (stored with the new status below).
  const computed: InvoiceRow = { ...invoice, invoicetotal: doc.totals.payable_amount.toFixed() };

  // Checked while the invoice is locked, so its total cannot grow between the check and the posting.
  if (checksCredit && parties.credit)
    await assertWithinCreditLimit(ctx.db, computed, parties.credit, {
      currency,
      rate: conversion?.rate ?? null,
      accounting: policy.accounting_currency,
      today: invoiceDate,
    });
  // A credit note never takes its invoice's validated credit notes past the invoice's total, nor
  // returns more goods than it delivered.
  if (credited) {
    await assertCreditable(ctx.db, { ...computed, currency }, credited);
    await assertRestockable(ctx.db, invoice, stored, credited, new Set(notStocked));
  }

  const accounts = accountsFor(invoice.invoicetype, invoice);
  const lines = invoiceEntryLines(invoice.invoicetype, entryFigures(doc, selfAssessedTax), accounts, conversion);
  const journalEntryId = await postEntry(
    ctx.db,
    {
      org_id: ctx.orgId,
      invoice_id: invoice.id,
      kind: 'invoice',
      journalname: accounts.journal,
      journaldate: invoiceDate,
      reference: invoice.invoicenumber,
    },
    lines,
  );
  // A zero-total document has nothing to collect: it is settled as soon as it is posted.
  const settled = dec(computed.invoicetotal).isZero();
  // Issued: what it shows of its parties, its currency and its rounding policy never change from here on.
  const frozen = await issuedColumns(ctx.db, invoice, issuedParties, policy.accounting_currency);
  const { row } = await storeTaxes(ctx.db, invoice, stored, doc, context, {
    invoicestatus: settled ? 'paid' : 'open',
    ...frozen,
    validated_at: ctx.db.fn.now(),
    // What the customer pays it with (docs/invoicing.md "Payment references"); only sales are collected.
    ...(invoice.invoicetype === 'invoiceout' ? { payment_reference: invoicePaymentReference(invoice.id) } : {}),
    ...(settled ? { paid_at: ctx.db.fn.now() } : {}),
    // The table's rate it was posted at, kept with the issued invoice.
    ...(conversion?.taken ? { exchange_rate: conversion.rate } : {}),
  });
  await storeStocked(ctx.db, invoice, stored);
  const posted = row;
  await recordEvent(ctx.db, invoicing.invoiceValidated, ctx.orgId, {
    ...eventRef(posted),
    journal_entry_id: journalEntryId,
    invoicedatetime: formatDateTime(posted.invoicedatetime) as string,
    invoicedue: formatDate(posted.invoicedue),
    validated_at: formatDateTime(posted.validated_at) as string,
    subtotal: toNumber(posted.subtotal),
    tax_amount: toNumber(posted.tax_amount),
    // Catalog moves stock by these (docs/design.md "stock follows documents"); a line never checked
    // against the catalog may name another product's id, so it moves nothing.
    lines: stored
      .filter((l) => l.catalog_checked)
      .map((l) => ({
        line_id: l.id,
        product_id: l.product_id,
        variant_id: l.variant_id,
        location_id: l.location_id,
        quantity: toNumber(l.quantity),
      })),
    restock: posted.restock,
    currency,
    accounting_total: toNumber(accountingTotal(doc.totals.payable_amount, currency, conversion, policy.accounting_currency)),
    trade_delta: toNumber(tradeMove(lines)),
  });
  if (settled)
    await recordEvent(ctx.db, invoicing.invoicePaid, ctx.orgId, {
      ...eventRef(posted),
      paid_at: formatDateTime(posted.paid_at) as string,
    });
  // A credit note settles the invoice it credits first; only the rest is credit. After the note's
  // own event, so the partner ledger reads the note before the allocation that uses it.
  const answered = credited ? (await settleCreditedInvoice(ctx.db, ctx, posted, credited)).note : posted;
  return {
    id: posted.id,
    invoicenumber: posted.invoicenumber,
    payment_reference: posted.payment_reference,
    invoicestatus: statusOf(answered, await organizationToday(ctx.db, ctx.orgId)),
    journal_entry_id: journalEntryId,
    invoicetotal: toNumber(posted.invoicetotal),
    due_amount: dueOf(answered),
  };
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
async function conversionOf(
  db: Knex,
  orgId: number,
  invoice: InvoiceRow,
  currency: string | null,
  accounting: string | null,
): Promise<(Conversion & { taken: boolean }) | null> {
  if (currency === null || accounting === null || currency === accounting) return null;
  if (invoice.exchange_rate !== null) return { rate: invoice.exchange_rate, currency: accounting, taken: false };
  const day = formatDate(invoice.invoicedatetime) as string;
  const found = await findExchangeRate(db, orgId, currency, day);
  if (found === null) {
    const message = `the invoice is in ${currency} and the organization books in ${accounting}: give exchange_rate (${accounting} per 1 ${currency}), or set a rate for ${currency} on or before ${day} (/invoicing/exchangerates)`;
    throw validationFailed(message, [{ field: 'exchange_rate', message }]);
  }
  return { rate: found.rate, currency: accounting, taken: true };
}

/** The total in the accounting currency as the journal's trade line books it: converted at the document's rate, or as it is. */
function accountingTotal(payable: Dec, currency: string | null, conversion: Conversion | null, accounting: string | null): Dec {
  if (!conversion || currency === null || accounting === null) return payable;
  return Money.of(payable, currency).convert(conversion.rate, accounting).amount;
}

/** Only a sale is checked against the partner's credit, and only unless the caller overrides it. */
function needsCreditCheck(type: string, override: boolean | undefined): boolean {
  return type === 'invoiceout' && !override;
}
