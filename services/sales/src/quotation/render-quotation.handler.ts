import { sales } from '@bo/contracts';
import { renderDocument } from '@bo/documents';
import { documentParties, findPartner, handler } from '@bo/runtime';
import { quotationDocument } from './quotation-document';
import { findQuotation, linesOf } from './quotation.repository';

/**
 * `/sales/orderdetail` with `format` = `pdf`: the quotation, proforma or estimate as a PDF
 * (docs/documents.md), drafts marked DRAFT. Read in one snapshot, then the parties are asked of the
 * partners service with no transaction open.
 */
export const renderQuotationHandler = handler(sales.renderQuotation, async (req, ctx) => {
  const { q, lines, partnerName } = await ctx.db.transaction(
    async (trx) => {
      const q = await findQuotation(trx, ctx.orgId, req.quotation_id);
      return { q, lines: await linesOf(trx, q.id), partnerName: (await findPartner(trx, ctx.orgId, q.partner_id))?.partnername ?? null };
    },
    { isolationLevel: 'repeatable read', readOnly: true },
  );
  const parties = await documentParties(ctx, q.partner_id);
  const file = await renderDocument(quotationDocument(q, lines, parties, partnerName), req.format, {
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
