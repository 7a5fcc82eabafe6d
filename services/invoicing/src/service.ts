import { z } from 'zod';
import { consumer } from '@bo/contracts';
import { type ServiceDefinition } from '@bo/runtime';
import { organizationSettingsConsumer, partnerDirectoryConsumer } from '@bo/billing';
import { bankRulesHandler } from './bank/bank-rules.handler';
import { bankSettingsHandler } from './bank/bank-settings.handler';
import { ignoreBankLineHandler } from './bank/ignore-line.handler';
import { importStatementHandler } from './bank/import-statement.handler';
import { listBankLinesHandler } from './bank/list-lines.handler';
import { listStatementsHandler } from './bank/list-statements.handler';
import { paymentFileHandler } from './bank/payment-file.handler';
import { reconcileBankLineHandler } from './bank/reconcile-line.handler';
import { suggestBankLineHandler } from './bank/suggest.handler';
import { unreconcileBankLineHandler } from './bank/unreconcile-line.handler';
import { dunningDisputeHandler } from './dunning/dispute-invoice.handler';
import { dunningLevelsHandler } from './dunning/dunning-levels.handler';
import { dunningGetHandler } from './dunning/get-dunning.handler';
import { dunningListHandler } from './dunning/list-dunning.handler';
import { dunningRunHandler } from './dunning/run-dunning.handler';
import { configureBooksHandler } from './book/configure-books.handler';
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
import { runReportHandler } from './report/run-report.handler';
import { openInvoicesHandler } from './partner/open-invoices.handler';
import { allocatePaymentHandler } from './payment/allocate-payment.handler';
import { createPaymentHandler } from './payment/create-payment.handler';
import { getPaymentHandler } from './payment/get-payment.handler';
import { listPaymentsHandler } from './payment/list-payments.handler';
import { acceptInboundHandler } from './inbound/accept-inbound.handler';
import { getInboundHandler } from './inbound/get-inbound.handler';
import { inboundSettingsHandler } from './inbound/inbound-settings.handler';
import { importInboundHandler } from './inbound/import-inbound.handler';
import { listInboundHandler } from './inbound/list-inbound.handler';
import { rejectInboundHandler } from './inbound/reject-inbound.handler';
import { warmEInvoiceRules } from './inbound/warm-rules';
import { refundPaymentHandler } from './payment/refund-payment.handler';
import { voidPaymentHandler } from './payment/void-payment.handler';
import { writeOffInvoiceHandler } from './payment/write-off-invoice.handler';
import { cancelRecurringHandler } from './recurring/cancel-recurring.handler';
import { generateChildHandler } from './recurring/generate-child.handler';
import { pauseRecurringHandler } from './recurring/pause-recurring.handler';
import { resumeRecurringHandler } from './recurring/resume-recurring.handler';
import { recurringPartnersConsumer } from './recurring/partner-deleted.consumer';
import { recurringScheduler } from './recurring/scheduler';

const settings = z.object({
  /** How often the recurring scheduler looks for due contracts. */
  RECURRING_INTERVAL_MS: z.coerce.number().int().min(100).max(86_400_000).default(60_000),
  /**
   * Whether the service parses the official e-invoice rules at start (inbound/warm-rules.ts), so the
   * first import does not wait seconds for them. Off where no document will be received (most tests).
   */
  EINVOICE_RULES_WARM: z.enum(['on', 'off']).default('on'),
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
    importStatementHandler,
    listStatementsHandler,
    listBankLinesHandler,
    suggestBankLineHandler,
    reconcileBankLineHandler,
    unreconcileBankLineHandler,
    ignoreBankLineHandler,
    bankRulesHandler,
    bankSettingsHandler,
    paymentFileHandler,
    dunningLevelsHandler,
    dunningRunHandler,
    dunningListHandler,
    dunningGetHandler,
    dunningDisputeHandler,
    importInboundHandler,
    listInboundHandler,
    getInboundHandler,
    acceptInboundHandler,
    rejectInboundHandler,
    inboundSettingsHandler,
  ],
  subscriptions: [
    partnerDirectoryConsumer(consumer.invoicingPartners),
    // Invoicing keeps the books: their accounting currency and lock date are its own (configureBooksHandler).
    organizationSettingsConsumer(consumer.invoicingOrganization, { ownsBooks: true }),
    recurringPartnersConsumer,
  ],
  background: (deps) => [
    recurringScheduler(deps, settings.parse(deps.config).RECURRING_INTERVAL_MS),
    ...(settings.parse(deps.config).EINVOICE_RULES_WARM === 'on'
      ? [warmEInvoiceRules((message, err) => deps.log.warn({ err }, message))]
      : []),
  ],
};
