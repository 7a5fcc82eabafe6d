import { sales } from '@bo/contracts';
import { renderDocument } from '@bo/documents';
import { handler } from '@bo/runtime';
import { readSettings } from '@bo/billing';
import { freezeQuotationParties, isIssued, issuedParties, partiesNow } from './issued-snapshot';
import { quotationDocument } from './quotation-document';
import { findQuotation, linesOf } from './quotation.repository';

/**
 * `/sales/orderdetail` with `format` = `pdf`: the quotation, proforma or estimate as a PDF
 * (docs/documents.md). Read in one snapshot; a draft renders, marked DRAFT, with the parties asked
 * of the partners service now (no transaction open), any other with the parties it froze when it
 * was sent. One that left draft without freezing them freezes them now, so every later render is
 * the same. The organization's accounting currency is frozen with the parties (the VAT in it, at the
 * quotation's own exchange rate, is printed too).
 */
export const renderQuotationHandler = handler(sales.renderQuotation, async (req, ctx) => {
  const { q, lines, frozen } = await ctx.db.transaction(
    async (trx) => {
      const q = await findQuotation(trx, ctx.orgId, req.quotation_id);
      return { q, lines: await linesOf(trx, q.id), frozen: await issuedParties(trx, q) };
    },
    { isolationLevel: 'repeatable read', readOnly: true },
  );
  let held = frozen && { parties: frozen, accounting_currency: q.accounting_currency };
  if (!held) {
    const now = await partiesNow(ctx, q);
    const { accounting_currency } = (await readSettings(ctx.db, ctx.orgId)).taxPolicy;
    held = isIssued(q)
      ? await ctx.db.transaction((trx) => freezeQuotationParties(trx, q, now, accounting_currency))
      : { parties: now, accounting_currency };
  }
  const file = await renderDocument(quotationDocument(q, lines, held.parties, held.accounting_currency), req.format, {
    warn: (message) => ctx.log.warn({ quotation_id: q.id }, message),
  });
  return {
    message: `Quotation ${q.quotation_number} rendered as ${req.format}`,
    id: q.id,
    number: q.quotation_number,
    format: req.format,
    filename: file.filename,
    content_type: file.content_type,
    content_base64: file.content.toString('base64'),
  };
});
