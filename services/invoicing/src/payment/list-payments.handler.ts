import { invoicing } from '@bo/contracts';
import { handler, paginationOf } from '@bo/runtime';
import { inSnapshot } from '../invoice/invoice.repository';
import { paymentPage, paymentRecords } from './payment.repository';

/** Payments newest first, each with its allocations and refunds, read in one snapshot. */
export const listPaymentsHandler = handler(invoicing.listPayments, (req, ctx) =>
  inSnapshot(ctx.db, async (db) => {
    const { rows, total } = await paymentPage(db, ctx.orgId, req, req);
    const payments = await paymentRecords(db, rows);
    return {
      message: payments.length ? 'Payments retrieved successfully' : 'No payments found',
      payments,
      pagination: paginationOf(req, total),
    };
  }),
);
