import { partners } from '@bo/contracts';
import type { InboxHandlerDef } from '@bo/runtime';
import { rememberPartner } from './partner-directory';

/** Feeds the partner read model that invoice lists show and search by name. */
export const partnerEventsConsumer: InboxHandlerDef = {
  name: 'invoicing.partners',
  events: [partners.partnerCreated.type, partners.partnerUpdated.type, partners.partnerDeleted.type],
  async handle(trx, event) {
    const record = partners.partnerCreated.data.parse(event.data);
    await rememberPartner(trx, event.org_id, record, event.type === partners.partnerDeleted.type);
  },
};
