import { renderedDocumentReply, renderFormatField } from '../documents';
import { baseRequest, intId } from '../fields';
import { defineOperation, HEAVY_COST, RENDER_TIMEOUT_MS } from '../operation';
import { z } from 'zod';

export const renderQuotationRequest = z.object({ ...baseRequest, quotation_id: intId, format: renderFormatField(['pdf']) });

/**
 * On /sales/orderdetail a `format` asks for the quotation, proforma or estimate as a PDF (drafts
 * marked DRAFT). Listed before the quotation get, which a `quotation_id` alone selects.
 */
export const renderQuotation = defineOperation({
  name: 'sales.quotation.render',
  service: 'sales',
  summary: 'The quotation, proforma or estimate as a PDF (with format = pdf)',
  paths: ['/sales/orderdetail'],
  select: { present: 'format' },
  write: false,
  cost: HEAVY_COST,
  timeoutMs: RENDER_TIMEOUT_MS,
  request: renderQuotationRequest,
  reply: renderedDocumentReply,
});
