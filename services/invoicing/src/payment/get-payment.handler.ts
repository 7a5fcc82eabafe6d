import { invoicing } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { inSnapshot } from '../invoice/invoice.repository';
import { findPayment, paymentRecords } from './payment.repository';

/** One payment with its allocations and refunds; another organization's is not found. */
export const getPaymentHandler = handler(invoicing.getPayment, (req, ctx) =>
  inSnapshot(ctx.db, async (db) => {
    const payment = await findPayment(db, ctx.orgId, req.payment_id);
    const [record] = await paymentRecords(db, [payment]);
    return { message: 'Payment retrieved successfully', payment: record as invoicing.PaymentRecord };
  }),
);
