import { invoicing } from '@bo/contracts';
import { duplicate, handler, isUniqueViolation, today } from '@bo/runtime';
import { requirePartner } from '../partners/partner-directory';
import { newInvoiceFrom } from './create-input';
import { toInvoiceRecord } from './invoice.record';
import { insertInvoice } from './invoice.writer';

/** Opens its own transaction, after the partner check that may ask the partners service. */
export const createInvoiceHandler = handler(invoicing.createInvoice, async (req, ctx) => {
  const values = newInvoiceFrom(req, ctx.userId, new Date());
  await requirePartner(ctx, req.partner);
  const sourceTaken = () =>
    duplicate(`An invoice for ${values.sourcetype} ${values.sourceid} already exists`, 'sourceid');
  try {
    const created = await ctx.db.transaction(async (trx) => {
      if (values.sourceid) {
        const existing = await trx('invoices').select('id').where({ org_id: ctx.orgId, sourcetype: values.sourcetype, sourceid: values.sourceid }).first();
        if (existing) throw sourceTaken();
      }
      const created = await insertInvoice(trx, ctx.orgId, values, req.line_items ?? []);
      const invoice = toInvoiceRecord(created.row, created.lines, today());
      const reply = { message: invoice.recurring.enabled ? 'Recurring invoice created successfully' : 'Invoice created successfully', invoice };
      await ctx.finish(trx, reply);
      return reply;
    });
    return created;
  } catch (err) {
    if (isUniqueViolation(err, 'invoices_org_source')) throw sourceTaken();
    throw err;
  }
}, { transactions: 'own' });
