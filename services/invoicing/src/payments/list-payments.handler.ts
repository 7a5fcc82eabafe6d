import { invoicing } from '@bo/contracts';
import { handler, paginationOf, selectPage } from '@bo/runtime';
import { inSnapshot } from '../invoice/invoice.repository';
import { paymentRecords, type PaymentRow } from './payment.repository';

/** Payments newest first, each with its allocations and refunds, read in one snapshot. */
export const listPaymentsHandler = handler(invoicing.listPayments, (req, ctx) =>
  inSnapshot(ctx.db, async (db) => {
    const filtered = db('payments').where({ org_id: ctx.orgId });
    if (req.partner !== undefined) void filtered.where({ partner_id: req.partner });
    if (req.direction !== undefined) void filtered.where({ direction: req.direction });
    if (req.status !== undefined) void filtered.where({ status: req.status });
    const { rows, total } = await selectPage<PaymentRow>(filtered.select('*'), req, (page) => page.orderBy('id', 'desc'));
    const payments = await paymentRecords(db, rows);
    return {
      message: payments.length ? 'Payments retrieved successfully' : 'No payments found',
      payments,
      pagination: paginationOf(req, total),
    };
  }),
);
