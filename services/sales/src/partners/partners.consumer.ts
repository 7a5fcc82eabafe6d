import { partners } from '@bo/contracts';
import type { InboxHandlerDef } from '@bo/runtime';
import { rememberPartner } from './partner-directory';

/** Keeps the partner read model (names for lists and search, currency, deleted) from partners events. */
export const partnersConsumer: InboxHandlerDef = {
  name: 'sales.partner-directory',
  events: [partners.partnerCreated.type, partners.partnerUpdated.type, partners.partnerDeleted.type],
  async handle(trx, event, log) {
    const parsed = partners.partnerRecord.safeParse(event.data);
    if (!parsed.success) {
      log.error({ issues: parsed.error.issues }, 'partner event with an unexpected record; ignored');
      return;
    }
    if (parsed.data.orgid !== event.org_id) {
      log.error({ orgid: parsed.data.orgid }, 'partner event whose record belongs to another organization; ignored');
      return;
    }
    await rememberPartner(trx, parsed.data, event.type === partners.partnerDeleted.type);
  },
};
