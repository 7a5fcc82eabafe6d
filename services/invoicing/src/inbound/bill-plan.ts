import type { LineItemInput } from '@bo/contracts';
import type { ReceivedInvoice, ReceivedLine, RuleFinding } from '@bo/documents';
import { parseDateTime } from '@bo/kernel';
import { AppError, type HandlerContext, type Knex } from '@bo/runtime';
import {
  type ResolvedLine,
  assertNotFenced,
  documentDefaults,
  nowIn,
  requireLivePartner,
  requirePartnerRole,
  resolveCatalogLines,
} from '@bo/billing';
import { lineField, newInvoiceFrom } from '../invoice/create-input';
import { checkedCreditNoteLink } from '../invoice/credit-note-link';
import { insertInvoice } from '../invoice/invoice.writer';
import {
  billTotals,
  decideImport,
  impliedExchangeRate,
  keepStatedVat,
  productKeys,
  totalDifferences,
  type KeptVat,
  type SupplierMatch,
} from './import-plan';

/** The bill an import makes, in the columns and lines the invoice creation's own writer (insertInvoice) takes. */
export interface BillFacts {
  partnerId: number;
  lines: Array<ResolvedLine<LineItemInput>>;
  values: ReturnType<typeof newInvoiceFrom>;
  defaults: Awaited<ReturnType<typeof documentDefaults>>;
  /** What the bill carries as the document states it beyond its own calculation (keepStatedVat's notes). */
  notes: string[];
}

export interface BillPlan {
  status: 'bill_created' | 'needs_review' | 'rejected';
  reasons: string[];
  /** The supplier matched or chosen, when one is. */
  partnerId: number | null;
  /** Present when status is bill_created. */
  bill?: BillFacts;
}

/**
 * Decides an import (import-plan.ts) and, when it makes a bill, gathers what the invoice creation
 * gathers for it: its lines checked by catalog, the partner's defaults, the credited bill. Import and
 * accept both run it; accept passes the reviewer's choices (`partnerId`, `chosen` products per line).
 */
export async function planBill(
  ctx: HandlerContext,
  userid: string | undefined,
  invoice: ReceivedInvoice,
  fatal: readonly RuleFinding[],
  supplier: SupplierMatch,
  opts: {
    createPartners?: boolean;
    /** Creates the unknown supplier as a vendor (when `createPartners`): its id, or why it was not made. */
    createSupplier?: () => Promise<{ partner_id: number } | { reason: string }>;
    chosen?: ReadonlyMap<string, string>;
  } = {},
): Promise<BillPlan> {
  const mapping = supplier.partner_id !== undefined ? await productMap(ctx.db, ctx.orgId, supplier.partner_id) : new Map<string, string>();
  const decision = decideImport({
    invoice,
    fatal,
    supplier,
    createPartners: opts.createPartners ?? false,
    productFor: (line: ReceivedLine) =>
      opts.chosen?.get(line.id) ??
      productKeys(line)
        .map((k) => mapping.get(k))
        .find((p) => p !== undefined),
  });
  if (decision.kind !== 'rejected' && decision.kind !== 'duplicate' && decision.partner === 'create' && opts.createSupplier) {
    // `inbound_create_partners`: the seller becomes a vendor, and the document is decided again for it.
    const made = await opts.createSupplier();
    if ('reason' in made) return { status: 'needs_review', reasons: [made.reason, ...decision.reasons], partnerId: null };
    return planBill(ctx, userid, invoice, fatal, { partner_id: made.partner_id, by: 'created' }, { chosen: opts.chosen });
  }
  const partnerId = supplier.partner_id ?? null;
  if (decision.kind === 'rejected') return { status: 'rejected', reasons: decision.reasons, partnerId };
  if (decision.kind === 'duplicate') return { status: 'rejected', reasons: [], partnerId };
  const reasons = [...decision.reasons];
  if (decision.kind !== 'bill' || typeof decision.partner !== 'object') return { status: 'needs_review', reasons, partnerId };
  const billPartner = decision.partner.partner_id;
  const defaults = await documentDefaults(ctx.db, ctx.orgId, billPartner);
  const currency = invoice.currency ?? '';
  const computed = billTotals(currency, defaults.rounding, decision.lines, decision.allowances_charges);
  let kept: KeptVat = { lines: decision.lines, allowances_charges: decision.allowances_charges, notes: [] };
  let exchangeRate: string | undefined;
  if ('reasons' in computed) reasons.push(...computed.reasons);
  else {
    // The sender's VAT where its rounding alone sets it apart: carried, and compared again.
    kept = keepStatedVat(invoice, computed.document, decision.lines, decision.allowances_charges);
    const carried = kept.notes.length > 0 ? billTotals(currency, defaults.rounding, kept.lines, kept.allowances_charges) : computed;
    if ('reasons' in carried) reasons.push(...carried.reasons);
    else {
      reasons.push(...totalDifferences(invoice.totals, carried.totals));
      // The VAT in the books' currency as the document states it (BT-111), by the rate it implies.
      const implied = impliedExchangeRate(
        invoice.totals.tax_accounting,
        currency,
        defaults.accounting_currency,
        carried.document.breakdown,
      );
      reasons.push(...implied.reasons);
      exchangeRate = implied.rate;
    }
  }
  if (reasons.length > 0) return { status: 'needs_review', reasons, partnerId };
  const bill = await billFacts(ctx, userid, invoice, billPartner, kept, defaults, exchangeRate);
  if ('reasons' in bill) return { status: 'needs_review', reasons: bill.reasons, partnerId };
  return { status: 'bill_created', reasons: [], partnerId, bill };
}

/**
 * The bill as the invoice creation makes it: its lines checked by catalog (the document's unit,
 * BT-130, as the line's unit of measure), its header from the document: the supplier's number
 * (BT-1) as `invoicereference`, the issue date, the due date (BT-9), the payment terms (BT-20), the
 * currency (BT-5), the document's allowances and charges. A credit note names the bill its BT-25
 * names (`sourcetype` invoice, `sourceid`) when that bill of the supplier is issued, else keeps the
 * number as `sourcenumber` only.
 */
async function billFacts(
  ctx: HandlerContext,
  userid: string | undefined,
  invoice: ReceivedInvoice,
  partnerId: number,
  kept: KeptVat,
  defaults: Awaited<ReturnType<typeof documentDefaults>>,
  exchangeRate: string | undefined,
): Promise<BillFacts | { reasons: string[] }> {
  const planned = kept.lines;
  const lineItems = planned.map(({ unit: _unit, stated_tax: _stated, ...l }) => l) as unknown as LineItemInput[];
  let resolved: Array<ResolvedLine<LineItemInput>>;
  try {
    resolved = await resolveCatalogLines(ctx, lineItems, lineField);
  } catch (err) {
    // A mapped product since deleted, or one without the line's rate: the reviewer chooses again.
    if (err instanceof AppError && err.status === 400) return { reasons: [`products: ${err.message}`] };
    throw err;
  }
  // The document's unit and, where the bill keeps the sender's VAT, the line's share of it.
  const lines = resolved.map((l, i) => ({
    ...l,
    ...(planned[i]?.unit ? { uom: planned[i].unit } : {}),
    ...(planned[i]?.stated_tax ? { stated_tax: planned[i].stated_tax } : {}),
  }));
  const now = nowIn(defaults.time_zone);
  const credit = invoice.kind === 'credit_note';
  const invoicetype = credit ? 'creditin' : 'invoicein';
  const preceding = credit ? invoice.preceding_invoices[0]?.number : undefined;
  const credited = preceding ? await issuedBill(ctx.db, ctx.orgId, partnerId, preceding, invoice.currency ?? '') : undefined;
  const request = {
    invoicetype,
    partner: partnerId,
    invoicedatetime: `${invoice.issue_date}T00:00:00`,
    invoicedue: invoice.due_date && invoice.due_date >= (invoice.issue_date ?? '') ? invoice.due_date : undefined,
    invoicereference: invoice.number,
    invoiceterms: invoice.payment_terms?.slice(0, 2000) ?? undefined,
    currency: invoice.currency,
    ...(exchangeRate ? { exchange_rate: Number(exchangeRate) } : {}),
    allowances_charges: kept.allowances_charges.map(({ stated_tax: _stated, ...a }) => a),
    ...(preceding ? { sourcenumber: preceding.slice(0, 64) } : {}),
    ...(credited ? { sourcetype: 'invoice', sourceid: String(credited) } : {}),
    userid,
  };
  const values = newInvoiceFrom(request as never, lines, ctx.userId, parseDateTime(now.dateTime));
  requirePartnerRole(await requireLivePartner(ctx, partnerId), invoicetype);
  // A kept VAT of an allowance or charge travels in its stored JSON, which the request's form does not carry.
  const allowances_charges = values.allowances_charges?.map((a, k) => {
    const stated = kept.allowances_charges[k]?.stated_tax;
    return stated ? { ...a, stated_tax: stated } : a;
  });
  const link = await checkedCreditNoteLink(ctx.db, ctx.orgId, values);
  return {
    partnerId,
    lines,
    values: { ...values, allowances_charges, credits_invoice_id: link?.id ?? null },
    defaults,
    notes: kept.notes,
  };
}

/**
 * The issued bill (`invoicein`, open or paid) of the supplier whose reference is the number a credit
 * note names, in the note's currency (a credit note is in its invoice's currency), if any.
 */
async function issuedBill(db: Knex, orgId: number, partnerId: number, number: string, currency: string): Promise<number | undefined> {
  const row = (await db('invoices')
    .select('id')
    .where({ org_id: orgId, partner_id: partnerId, invoicetype: 'invoicein', invoicereference: number, currency })
    .whereIn('invoicestatus', ['open', 'paid'])
    .orderBy('id', 'desc')
    .first()) as { id: number } | undefined;
  return row?.id;
}

/** The supplier's product keys (productKeys) mapped to our products, as `accept` stored them. */
export async function productMap(db: Knex, orgId: number, partnerId: number): Promise<Map<string, string>> {
  const rows = (await db('inbound_product_map')
    .select('product_key', 'product_id')
    .where({ org_id: orgId, partner_id: partnerId })) as Array<{ product_key: string; product_id: number }>;
  return new Map(rows.map((r) => [r.product_key, String(r.product_id)]));
}

/**
 * Stores the bill by the invoice creation's own writer, in the caller's transaction, after the
 * partner's delete fence; its id and number. insertInvoice numbers the bill last, so the caller's remaining
 * statements are its own bookkeeping and the reply.
 */
export async function makeBill(
  ctx: { db: Knex.Transaction; orgId: number },
  bill: BillFacts,
): Promise<{ id: number; invoicenumber: string }> {
  await assertNotFenced(ctx.db, ctx.orgId, bill.partnerId);
  const created = await insertInvoice(ctx.db, ctx.orgId, bill.values, bill.lines, bill.defaults);
  return { id: created.row.id, invoicenumber: created.row.invoicenumber };
}
