import { z } from 'zod';
import { consumer } from '@bo/contracts';
import { type ServiceDefinition } from '@bo/runtime';
import { organizationSettingsConsumer, partnerDirectoryConsumer } from '@bo/billing';
import { conversionRecovery } from './conversion/conversion-recovery';
import { convertQuotationHandler } from './conversion/convert-quotation.handler';
import { salesMigrations } from './migrations';
import { openQuotationsHandler } from './partner/open-quotations.handler';
import { addQuotationLineHandler } from './quotation/add-line.handler';
import { cancelQuotationHandler } from './quotation/cancel-quotation.handler';
import { createQuotationHandler } from './quotation/create-quotation.handler';
import { editQuotationHandler } from './quotation/edit-quotation.handler';
import { getQuotationHandler } from './quotation/get-quotation.handler';
import { renderQuotationHandler } from './quotation/render-quotation.handler';
import { listQuotationsHandler } from './quotation/list-quotations.handler';
import { quotationTotalHandler } from './quotation/quotation-total.handler';

const settings = z.object({
  /**
   * How often the recovery task looks for conversions left unfinished (frozen with no attempt for
   * three RPC_TIMEOUT_MS) and finishes them.
   */
  CONVERSION_RECOVERY_MS: z.coerce.number().int().min(100).max(3_600_000).default(10_000),
});

export const salesService: ServiceDefinition = {
  name: 'sales',
  settings,
  migrations: salesMigrations,
  handlers: [
    listQuotationsHandler,
    getQuotationHandler,
    renderQuotationHandler,
    createQuotationHandler,
    addQuotationLineHandler,
    editQuotationHandler,
    quotationTotalHandler,
    cancelQuotationHandler,
    convertQuotationHandler,
    openQuotationsHandler,
  ],
  subscriptions: [partnerDirectoryConsumer(consumer.salesPartnerDirectory), organizationSettingsConsumer(consumer.salesOrganization)],
  background: (deps) => [conversionRecovery(deps, settings.parse(deps.config).CONVERSION_RECOVERY_MS)],
};
