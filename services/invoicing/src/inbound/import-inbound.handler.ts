import { createHash } from 'node:crypto';
import { invoicing, partners } from '@bo/contracts';
import { readEInvoice, validateEInvoice, XmlRefused, type ReadEInvoice, type ReceivedParty, type ValidationReport } from '@bo/documents';
import { AppError, CallError, handler, isUniqueViolation, recordEvent, type HandlerContext } from '@bo/runtime';
import { postInvoice, validationFacts } from '../invoice/validate-invoice.handler';
import { makeBill, planBill } from './bill-plan';
import { inboundRefusals } from './inbound-refusals';
import { endpointKey, matchSupplier, normalId, type SupplierCandidate } from './import-plan';
import {
  createsPartners,
  inboundBySha,
  inboundEventOf,
  inboundDuplicate,
  insertInbound,
  paymentOf,
  toInboundRecord,
  type InboundSummary,
} from './inbound.repository';

const FIELD = 'content_base64';
/** Partners read per page when the supplier is looked for (the list's largest page). */
const PARTNER_PAGE = 100;

/**
 * Import: gather reads and validates the file (the rules on a worker thread), asks partners for the
 * candidate suppliers and catalog for the bill's products, and decides (import-plan.ts); apply checks
 * the same bytes and the duplicate again under the unique indexes, stores the original with what was
 * decided, makes the bill when the plan says so, and records the events.
 */
export const importInboundHandler = handler(invoicing.importInbound, {
  gather: async (req, ctx) => {
    const bytes = Buffer.from(req.content_base64, 'base64');
    if (bytes.length === 0) throw inboundRefusals.contentEmpty();
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const earlier = await inboundBySha(ctx.db, ctx.orgId, sha256);
    if (earlier) return { earlier };
    let read: ReadEInvoice;
    try {
      read = await readEInvoice(bytes);
    } catch (err) {
      if (err instanceof XmlRefused) throw inboundRefusals.contentUnreadable(err.message, err.reason);
      throw err;
    }
    const invoice = read.invoice;
    const report: ValidationReport = await validateEInvoice(
      read.syntax === 'facturx' ? 'cii' : read.syntax,
      read.xml.toString('utf8'),
      invoice.customization_id,
    );
    const candidates = await supplierCandidates(ctx);
    const supplier = matchSupplier(invoice.seller, candidates);
    const supplierKey = normalId(invoice.seller.vat_id) || endpointKey(invoice.seller.endpoint_id) || null;
    const plan = await planBill(ctx, req.userid, invoice, report.fatal, supplier, {
      createPartners: await createsPartners(ctx.db, ctx.orgId),
      createSupplier: () => createSupplier(ctx, req.userid, invoice.seller),
    });
    // `validate: true`: what the validate operation asks elsewhere, for the bill about to be stored.
    const validation =
      req.validate === true && plan.bill
        ? await validationFacts(
            ctx,
            {
              ...plan.bill.values,
              partner_id: plan.bill.partnerId,
              credits_invoice_id: plan.bill.values.credits_invoice_id ?? null,
              restock: plan.bill.values.restock ?? true,
            },
            { productIds: plan.bill.lines.map((l) => l.product_id) },
            undefined,
          )
        : undefined;
    return {
      sha256,
      bytes,
      validation,
      syntax: read.syntax,
      contentType: read.syntax === 'facturx' ? 'application/pdf' : 'application/xml',
      supplierKey,
      partnerId: plan.partnerId,
      invoice,
      report,
      status: plan.status,
      reasons: plan.reasons,
      bill: plan.bill,
    };
  },
  apply: async (req, ctx, facts) => {
    if ('earlier' in facts && facts.earlier) return { message: 'This file was imported before', inbound: toInboundRecord(facts.earlier) };
    const again = await inboundBySha(ctx.db, ctx.orgId, facts.sha256);
    if (again) return { message: 'This file was imported before', inbound: toInboundRecord(again) };
    const inv = facts.invoice;
    if (facts.supplierKey && inv.number && inv.issue_date && facts.status !== 'rejected') {
      const dup = await inboundDuplicate(ctx.db, ctx.orgId, facts.supplierKey, inv.number, inv.issue_date);
      if (dup) {
        throw new AppError(
          409,
          'duplicate_document',
          `Invoice ${inv.number} of ${inv.issue_date} from this supplier was imported before: import ${dup.id}${dup.invoice_id ? `, bill ${dup.invoice_id}` : ', no bill'}`,
          [{ field: FIELD, message: `a duplicate of import ${dup.id}` }],
        );
      }
    }
    const made = facts.bill ? await makeBill(ctx, facts.bill) : null;
    const invoiceId = made?.id ?? null;
    // Posted by the validate operation's own code, in this transaction: its refusal refuses the import.
    const posted = made && facts.validation ? await postInvoice(ctx, made.id, facts.validation, `bill ${made.invoicenumber}`) : null;
    const summary: InboundSummary = {
      customization_id: inv.customization_id ?? null,
      payment: paymentOf(inv),
      currency: inv.currency ?? null,
      seller: {
        name: inv.seller.name ?? null,
        vat_id: inv.seller.vat_id ?? null,
        endpoint_id: inv.seller.endpoint_id
          ? `${inv.seller.endpoint_id.scheme ? `${inv.seller.endpoint_id.scheme}:` : ''}${inv.seller.endpoint_id.id}`
          : null,
      },
      totals: {
        line_extension: inv.totals.line_extension ?? null,
        tax_exclusive: inv.totals.tax_exclusive ?? null,
        tax: inv.totals.tax ?? null,
        tax_inclusive: inv.totals.tax_inclusive ?? null,
        payable: inv.totals.payable ?? null,
      },
    };
    const validation = { fatal: facts.report.fatal, warnings: facts.report.warnings };
    // A rejected document keeps no supplier key: it claims no number, so a corrected copy may follow.
    const stored = await storeOnce(() =>
      insertInbound(ctx.db, {
        org_id: ctx.orgId,
        status: facts.status,
        syntax: facts.syntax,
        original: facts.bytes,
        sha256: facts.sha256,
        content_type: facts.contentType,
        filename: req.filename ?? null,
        supplier_key: facts.status === 'rejected' ? null : facts.supplierKey,
        partner_id: facts.partnerId,
        invoice_number: inv.number ?? null,
        issue_date: inv.issue_date ?? null,
        summary,
        validation,
        review_reasons: facts.reasons,
        notes: made ? (facts.bill?.notes ?? []) : [],
        invoice_id: invoiceId,
      }),
    );
    const data = inboundEventOf(stored);
    await recordEvent(ctx.db, invoicing.inboundReceived, ctx.orgId, data);
    if (facts.status === 'bill_created') await recordEvent(ctx.db, invoicing.inboundBillCreated, ctx.orgId, data);
    else if (facts.status === 'needs_review')
      await recordEvent(ctx.db, invoicing.inboundNeedsReview, ctx.orgId, { ...data, review_reasons: facts.reasons });
    else await recordEvent(ctx.db, invoicing.inboundRejected, ctx.orgId, { ...data, reasons: facts.reasons });
    const message =
      facts.status === 'bill_created' ? 'Bill created' : facts.status === 'needs_review' ? 'Held for review' : 'Rejected by the rules';
    const bill = made
      ? posted
        ? {
            id: posted.id,
            invoicenumber: posted.invoicenumber,
            invoicestatus: posted.invoicestatus,
            journal_entry_id: posted.journal_entry_id,
          }
        : { id: made.id, invoicenumber: made.invoicenumber, invoicestatus: 'draft' as const, journal_entry_id: null }
      : undefined;
    return { message: posted ? 'Bill created and validated' : message, inbound: toInboundRecord(stored), ...(bill ? { bill } : {}) };
  },
});

/** Every partner with an identifier the supplier match compares (VAT id, Peppol id), page by page. */
async function supplierCandidates(ctx: Pick<HandlerContext, 'call'>): Promise<SupplierCandidate[]> {
  const found: SupplierCandidate[] = [];
  for (let page = 1; ; page++) {
    const reply = await ctx.call(partners.listPartners, { page_number: page, page_size: PARTNER_PAGE }, { what: 'the suppliers' });
    for (const p of reply.partners) {
      if (p.tax_number || p.peppol_id) found.push({ partner_id: p.id, vat_id: p.tax_number, peppol_id: p.peppol_id });
    }
    if (!reply.pagination.has_next) return found;
  }
}

/**
 * The unknown supplier as a vendor, from the document's seller: its name (BT-27, else BT-28), VAT id
 * (BT-31), Peppol endpoint (BT-34) and address. Only a seller with a VAT id or an endpoint is made:
 * the next import (or this one run again) then finds it by that identifier instead of making another.
 * A refusal by partners (an endpoint scheme it does not take) is tried once more without the endpoint
 * and the address, and a second refusal is a review reason.
 */
async function createSupplier(
  ctx: Pick<HandlerContext, 'call'>,
  userid: string | undefined,
  seller: ReceivedParty,
): Promise<{ partner_id: number } | { reason: string }> {
  const peppol = seller.endpoint_id?.scheme ? `${seller.endpoint_id.scheme}:${seller.endpoint_id.id}` : undefined;
  if (!seller.vat_id && !peppol)
    return { reason: 'supplier: the seller states neither a VAT id (BT-31) nor an endpoint (BT-34); a vendor is created only from one' };
  const name = (seller.name ?? seller.trading_name ?? seller.vat_id ?? peppol!).slice(0, 200);
  const base = {
    action: 'create' as const,
    partnername: name,
    partner_type: 'vendor' as const,
    ...(seller.vat_id ? { tax_number: seller.vat_id.slice(0, 50) } : {}),
    ...(userid ? { userid } : {}),
  };
  const a = seller.address;
  const full = {
    ...base,
    ...(peppol ? { peppol_id: peppol } : {}),
    ...(a.line1 ? { address_line1: a.line1.slice(0, 200) } : {}),
    ...(a.city ? { city: a.city.slice(0, 100) } : {}),
    ...(a.postcode ? { postal_code: a.postcode.slice(0, 20) } : {}),
    ...(a.country && /^[A-Z]{2}$/.test(a.country) ? { country: a.country } : {}),
  };
  for (const body of [full, base]) {
    try {
      const made = await ctx.call(partners.createPartner, body, { what: 'the new supplier' });
      return { partner_id: made.partner.id };
    } catch (err) {
      if (!(err instanceof CallError && err.failure === 'refused' && err.status === 400)) throw err;
      if (body === base) return { reason: `supplier: creating the vendor was refused: ${err.message}` };
    }
  }
  return { reason: 'supplier: the vendor was not created' };
}

/**
 * Two imports of the same bytes, or of the same supplier's number and date, that ran at once: the one
 * that commits second meets the unique index. Its transaction is gathered again (AppError.asStale), and
 * then finds the earlier import and answers it, or refuses the duplicate, as a sequential repeat would.
 */
async function storeOnce<T>(insert: () => Promise<T>): Promise<T> {
  try {
    return await insert();
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError(503, 'service_unavailable', 'The same document was imported meanwhile; retry').asStale();
    throw err;
  }
}
