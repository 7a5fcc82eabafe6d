import { z } from 'zod';
import { organizationSettingsConsumer, partnerDirectoryConsumer, type ServiceDefinition } from '@bo/runtime';
import { configureBooksHandler } from './books/configure-books.handler';
import { addLineHandler } from './invoice/add-line.handler';
import { cancelInvoiceHandler } from './invoice/cancel-invoice.handler';
import { createFromSourceHandler } from './invoice/create-from-source.handler';
import { createInvoiceHandler } from './invoice/create-invoice.handler';
import { invoiceBalancesHandler } from './invoice/invoice-balances.handler';
import { listInvoicesHandler } from './invoice/list-invoices.handler';
import { registerPaymentHandler } from './invoice/register-payment.handler';
import { renderInvoiceHandler } from './invoice/render-invoice.handler';
import { validateInvoiceHandler } from './invoice/validate-invoice.handler';
import { invoicingMigrations } from './migrations';
import { deleteExchangeRateHandler } from './exchange-rate/delete-exchange-rate.handler';
import { listExchangeRatesHandler } from './exchange-rate/list-exchange-rates.handler';
import { setExchangeRateHandler } from './exchange-rate/set-exchange-rate.handler';
import { runReportHandler } from './reports/run-report.handler';
import { openInvoicesHandler } from './partners/open-invoices.handler';
import { allocatePaymentHandler } from './payments/allocate-payment.handler';
import { createPaymentHandler } from './payments/create-payment.handler';
import { getPaymentHandler } from './payments/get-payment.handler';
import { listPaymentsHandler } from './payments/list-payments.handler';
import { refundPaymentHandler } from './payments/refund-payment.handler';
import { voidPaymentHandler } from './payments/void-payment.handler';
import { writeOffInvoiceHandler } from './payments/write-off-invoice.handler';
import { cancelRecurringHandler } from './recurring/cancel-recurring.handler';
import { generateChildHandler } from './recurring/generate-child.handler';
import { pauseRecurringHandler } from './recurring/pause-recurring.handler';
import { resumeRecurringHandler } from './recurring/resume-recurring.handler';
import { recurringPartnersConsumer } from './recurring/partner-deleted.consumer';
import { recurringScheduler } from './recurring/scheduler';

const settings = z.object({
  /** How often the recurring scheduler looks for due contracts. */
  RECURRING_INTERVAL_MS: z.coerce.number().int().min(100).max(86_400_000).default(60_000),
});

export const invoicingService: ServiceDefinition = {
  name: 'invoicing',
  settings,
  migrations: invoicingMigrations,
  handlers: [
    createInvoiceHandler,
    createFromSourceHandler,
    listInvoicesHandler,
    addLineHandler,
    cancelInvoiceHandler,
    validateInvoiceHandler,
    invoiceBalancesHandler,
    renderInvoiceHandler,
    registerPaymentHandler,
    pauseRecurringHandler,
    resumeRecurringHandler,
    cancelRecurringHandler,
    generateChildHandler,
    openInvoicesHandler,
    createPaymentHandler,
    allocatePaymentHandler,
    refundPaymentHandler,
    voidPaymentHandler,
    listPaymentsHandler,
    getPaymentHandler,
    writeOffInvoiceHandler,
    setExchangeRateHandler,
    listExchangeRatesHandler,
    deleteExchangeRateHandler,
    runReportHandler,
    configureBooksHandler,
  ],
  subscriptions: [
    partnerDirectoryConsumer('invoicing.partners'),
    // Invoicing keeps the books: their accounting currency and lock date are its own (configureBooksHandler).
    organizationSettingsConsumer('invoicing.organization', { ownsBooks: true }),
    recurringPartnersConsumer,
  ],
  background: (deps) => [recurringScheduler(deps, settings.parse(deps.config).RECURRING_INTERVAL_MS)],
};
