import { invoicing } from '@bo/contracts';
import {
  duplicate,
  handler,
  isUniqueViolation,
  organizationNow,
  parseDateTime,
  requireLivePartner,
  requirePartnerRole,
  resolveCatalogLines,
} from '@bo/runtime';
import { lineField, newInvoiceFrom } from './create-input';
import { toInvoiceRecord } from './invoice.record';
import { insertInvoice } from './invoice.writer';

/** Opens its own transaction, after the catalog and partner checks that ask other services. */
export const createInvoiceHandler = handler(
  invoicing.createInvoice,
  async (req, ctx) => {
    const lines = await resolveCatalogLines(ctx, req.line_items ?? [], lineField);
    // Dates are the organization's wall clock: a new invoice is dated now in its time zone.
    const now = await organizationNow(ctx.db, ctx.orgId);
    const values = newInvoiceFrom(req, lines, ctx.userId, parseDateTime(now.dateTime));
    requirePartnerRole(await requireLivePartner(ctx, req.partner), req.invoicetype);
    const sourceTaken = () => duplicate(`An invoice for ${values.sourcetype} ${values.sourceid} already exists`, 'sourceid');
    try {
      const created = await ctx.db.transaction(async (trx) => {
        if (values.sourceid) {
          const existing = await trx('invoices')
            .select('id')
            .where({ org_id: ctx.orgId, sourcetype: values.sourcetype, sourceid: values.sourceid })
            .first<{ id: number } | undefined>();
          if (existing) throw sourceTaken();
        }
        const created = await insertInvoice(trx, ctx.orgId, values, lines);
        const invoice = toInvoiceRecord(created.row, created.lines, now.date);
        const reply = {
          message: invoice.recurring.enabled ? 'Recurring invoice created successfully' : 'Invoice created successfully',
          invoice,
        };
        await ctx.finish(trx, reply);
        return reply;
      });
      return created;
    } catch (err) {
      if (isUniqueViolation(err, 'invoices_org_source')) throw sourceTaken();
      throw err;
    }
  },
  { transactions: 'own' },
);
