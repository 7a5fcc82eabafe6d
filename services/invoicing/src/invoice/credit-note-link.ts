import { amountText } from '@bo/kernel';
import { catalog } from '@bo/contracts';
import { type AppError, type HandlerContext, type Knex } from '@bo/runtime';
import { claimedCreditedInvoice, creditLinkProblem, creditNoteCurrency, creditRoom, isCreditNote } from '../domain/credit-note';
import { restockProblems, stockedQuantity } from '../domain/restock';
import type { InvoiceRow, LineRow } from './invoice.record';
import { linesOf } from './invoice.repository';
import { invoiceRefusals } from './invoice-refusals';

/** The invoice a credit note credits, as create and validation judge the note against it. */
export type CreditedInvoice = Pick<InvoiceRow, 'id' | 'invoicenumber' | 'currency'>;

/**
 * The invoice a new credit note credits, checked (docs/invoicing.md "Credit notes"): the id its
 * `sourcetype` `invoice` / `sourceid` name, of the organization (another's answers `not_found`, as one
 * that does not exist), the same partner, issued, of the paired type. Null when the note names no
 * invoice; the client's source fields are then free text. Neither the partner, the type nor an issued
 * status of an invoice ever changes, so no lock is needed here: validation locks it.
 */
export async function checkedCreditNoteLink(
  db: Knex,
  orgId: number,
  note: Pick<InvoiceRow, 'invoicetype' | 'partner_id'> & { sourcetype?: string | null; sourceid?: string | null },
): Promise<CreditedInvoice | null> {
  const claim = claimedCreditedInvoice(note);
  if (claim.kind === 'none' || !isCreditNote(note.invoicetype)) return null;
  if (claim.kind === 'bad') throw invoiceRefusals.creditedInvoiceIdInvalid(note.sourceid);
  const credited = await db<InvoiceRow>('invoices').where({ org_id: orgId, id: claim.id }).first();
  if (!credited) throw invoiceRefusals.creditedInvoiceNotFound(claim.id);
  const problem = creditLinkProblem({ invoicetype: note.invoicetype, partner_id: note.partner_id }, credited);
  if (problem) throw invoiceRefusals.creditNoteLinkRefused(claim.id, problem);
  return { id: credited.id, invoicenumber: credited.invoicenumber, currency: credited.currency };
}

/**
 * The currency of a credit note that credits `credited`: the invoice's (creditNoteCurrency), or a 400
 * naming `currency` when the note names another. `note.currency` is what the note states: the
 * request's on create, the stored one on validation.
 */
export function creditedCurrency(note: { currency?: string | null }, credited: CreditedInvoice): string | null {
  const decided = creditNoteCurrency({ currency: note.currency ?? null }, credited);
  if ('currency' in decided) return decided.currency;
  throw invoiceRefusals.creditNoteCurrencyRefused(decided.problem);
}

/**
 * What validation judges a credit note by against the invoice it credits (creditableRefusal,
 * restockRefusal), read with that invoice locked (lockCreditedInvoice): its other validated credit
 * notes, what it stocked per product, and what those notes returned.
 */
export interface CreditedFacts {
  invoice: InvoiceRow;
  validatedNotes: Array<Pick<InvoiceRow, 'invoicenumber' | 'invoicetotal' | 'currency'>>;
  delivered: Array<{ product_id: string; quantity: string }>;
  returned: Array<{ product_id: string; quantity: string }>;
}

/** Loads CreditedFacts of the locked invoice `invoice` for the note `noteId`; what it returned and delivered only for a note that returns goods. */
export async function loadCreditedFacts(
  trx: Knex.Transaction,
  note: Pick<InvoiceRow, 'id' | 'restock'>,
  invoice: InvoiceRow,
): Promise<CreditedFacts> {
  const validatedNotes = await trx<InvoiceRow>('invoices')
    .where({ credits_invoice_id: invoice.id })
    .whereIn('invoicestatus', ['open', 'paid'])
    .whereNot('id', note.id)
    .select<Array<Pick<InvoiceRow, 'invoicenumber' | 'invoicetotal' | 'currency'>>>('invoicenumber', 'invoicetotal', 'currency');
  if (!note.restock) return { invoice, validatedNotes, delivered: [], returned: [] };
  const stocked = (query: Knex.QueryBuilder) =>
    query.whereNotNull('l.stocked').select<Array<{ product_id: string; quantity: string }>>('l.product_id', 'l.stocked as quantity');
  const delivered = await stocked(trx('invoice_lines as l').where('l.invoice_id', invoice.id));
  const returned = await stocked(
    trx('invoice_lines as l')
      .join('invoices as n', 'n.id', 'l.invoice_id')
      .where('n.credits_invoice_id', invoice.id)
      .whereIn('n.invoicestatus', ['open', 'paid'])
      .whereNot('n.id', note.id),
  );
  return { invoice, validatedNotes, delivered, returned };
}

/**
 * A credit note never takes its invoice's validated credit notes past the invoice's total, compared
 * in the invoice's one currency: the refusal, with what is still creditable, or null.
 */
export function creditableRefusal(
  note: Pick<InvoiceRow, 'invoicenumber' | 'invoicetotal' | 'currency'>,
  credited: Pick<CreditedFacts, 'invoice' | 'validatedNotes'>,
): AppError | null {
  const { invoice, validatedNotes: validated } = credited;
  const room = creditRoom(
    { amount: invoice.invoicetotal, currency: invoice.currency },
    validated.map((v) => ({ amount: v.invoicetotal, currency: v.currency })),
    { amount: note.invoicetotal, currency: note.currency },
  );
  if (room.fits) return null;
  if ('foreign' in room) {
    const others = validated.filter((v) => v.currency !== invoice.currency).map((v) => `${v.invoicenumber} (${v.currency})`);
    return invoiceRefusals.creditNoteCurrenciesMixed(note.invoicenumber, invoice.invoicenumber, invoice.currency, others);
  }
  return invoiceRefusals.creditNoteExceedsInvoice(
    note.invoicenumber,
    amountText(note.invoicetotal),
    invoice.invoicenumber,
    amountText(invoice.invoicetotal),
    amountText(room.credited),
    amountText(room.left),
  );
}

/**
 * At validation of a credit note that credits an invoice: locks that invoice's row, so validations of
 * its credit notes run one at a time and each sees the ones before (their credit, their returns, their
 * settlement). Called with the note itself already locked; nothing else locks a credit note after its
 * invoice, so no deadlock. Null for a note that credits no invoice.
 */
export async function lockCreditedInvoice(trx: Knex.Transaction, note: InvoiceRow): Promise<InvoiceRow | null> {
  if (note.credits_invoice_id === null) return null;
  return (await trx<InvoiceRow>('invoices').where({ id: note.credits_invoice_id }).forUpdate().first()) ?? null;
}

/**
 * The products of a credit note that returns goods to the invoice it credits that catalog keeps no
 * stock of (services, consumables, products gone): returning them moves nothing, so they are not
 * capped. Asked before validation's transaction; a product added to the note since is capped.
 */
export async function productsNotStocked(
  ctx: Pick<HandlerContext, 'call' | 'db'>,
  note: Pick<InvoiceRow, 'credits_invoice_id' | 'invoicetype' | 'restock'>,
  /** The note's lines checked against the catalog: a stored note's are read by its id, a note about to be stored gives its own. */
  catalogLines: { id: number } | { productIds: readonly string[] },
): Promise<Set<string>> {
  if (note.credits_invoice_id === null || !isCreditNote(note.invoicetype) || !note.restock) return new Set();
  const productIds =
    'productIds' in catalogLines
      ? catalogLines.productIds
      : ((await linesOf(ctx.db, [catalogLines.id])).get(catalogLines.id) ?? []).filter((l) => l.catalog_checked).map((l) => l.product_id);
  const ids = [...new Set(productIds)].filter((id) => /^[1-9]\d{0,9}$/.test(id)).map(Number);
  if (!ids.length) return new Set();
  const found = await ctx.call(catalog.lookup, { product_ids: ids }, { what: 'the products the credit note returns' });
  const stocked = new Set(found.products.filter((p) => catalog.carriesStock(p.type)).map((p) => String(p.id)));
  return new Set(ids.map(String).filter((id) => !stocked.has(id)));
}

/**
 * A credit note that returns goods (`restock`) returns at most what the invoice it credits stocked,
 * per product, less what its validated credit notes returned (domain/restock.ts): the refusal naming
 * each line's `quantity`, or null. Products catalog keeps no stock of (`notStocked`) are not capped.
 */
export function restockRefusal(
  note: Pick<InvoiceRow, 'invoicetype' | 'restock'>,
  lines: readonly LineRow[],
  credited: CreditedFacts,
  notStocked: ReadonlySet<string>,
): AppError | null {
  const returning = lines
    .map((l, index) => ({ product_id: l.product_id, quantity: stockedQuantity(note, l), index }))
    .filter((l) => l.quantity.greaterThan(0) && !notStocked.has(l.product_id));
  if (!returning.length) return null;
  const problems = restockProblems(credited.invoice.invoicenumber, returning, credited.delivered, credited.returned);
  return problems.length ? invoiceRefusals.restockRefused(problems) : null;
}
