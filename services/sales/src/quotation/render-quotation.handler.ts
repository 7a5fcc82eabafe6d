import { sales } from '@bo/contracts';
import { renderDocument } from '@bo/documents';
import { handler } from '@bo/runtime';
import { freezeQuotationParties, isIssued, issuedParties, partiesNow } from './issued-snapshot';
import { quotationDocument } from './quotation-document';
import { findQuotation, linesOf } from './quotation.repository';

/**
 * `/sales/orderdetail` with `format` = `pdf`: the quotation, proforma or estimate as a PDF
 * (docs/documents.md). Read in one snapshot; a draft renders, marked DRAFT, with the parties asked
 * of the partners service now (no transaction open), any other with the parties it froze when it
 * was sent. One that left draft without freezing them freezes them now, so every later render is
 * the same.
 */
export const renderQuotationHandler = handler(sales.renderQuotation, async (req, ctx) => {
  const { q, lines, frozen } = await ctx.db.transaction(
    async (trx) => {
      const q = await findQuotation(trx, ctx.orgId, req.quotation_id);
      return { q, lines: await linesOf(trx, q.id), frozen: await issuedParties(trx, q) };
    },
    { isolationLevel: 'repeatable read', readOnly: true },
  );
  let parties = frozen;
  if (!parties) {
    const now = await partiesNow(ctx, q);
    parties = isIssued(q) ? await ctx.db.transaction((trx) => freezeQuotationParties(trx, q, now)) : now;
  }
  const file = await renderDocument(quotationDocument(q, lines, parties), req.format, {
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
