import type { ServiceDefinition } from '@bo/runtime';
import { convertQuotationHandler } from './conversion/convert-quotation.handler';
import { salesMigrations } from './migrations';
import { partnersConsumer } from './partners/partners.consumer';
import { addQuotationLineHandler } from './quotation/add-line.handler';
import { cancelQuotationHandler } from './quotation/cancel-quotation.handler';
import { createQuotationHandler } from './quotation/create-quotation.handler';
import { editQuotationHandler } from './quotation/edit-quotation.handler';
import { listQuotationsHandler } from './quotation/list-quotations.handler';
import { quotationTotalHandler } from './quotation/quotation-total.handler';

export const salesService: ServiceDefinition = {
  name: 'sales',
  migrations: salesMigrations,
  handlers: [
    listQuotationsHandler,
    createQuotationHandler,
    addQuotationLineHandler,
    editQuotationHandler,
    quotationTotalHandler,
    cancelQuotationHandler,
    convertQuotationHandler,
  ],
  subscriptions: [partnersConsumer],
};
