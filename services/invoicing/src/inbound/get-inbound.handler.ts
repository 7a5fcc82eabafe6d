import { invoicing } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { inboundRefusals } from './inbound-refusals';
import { inboundById, toInboundRecord } from './inbound.repository';

/** One import; with `format: "original"` the file as it was received, byte for byte. */
export const getInboundHandler = handler(invoicing.getInbound, async (req, ctx) => {
  const original = req.format === 'original';
  const row = await inboundById(ctx.db, ctx.orgId, req.id, { original });
  if (!row) throw inboundRefusals.importNotFound(req.id);
  const inbound = toInboundRecord(row);
  if (!original) return { message: 'Import retrieved successfully', inbound };
  return {
    message: 'Import retrieved successfully',
    inbound,
    content_base64: row.original.toString('base64'),
    content_type: row.content_type,
    sha256: inbound.sha256,
  };
});
