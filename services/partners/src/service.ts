import type { ServiceDefinition } from '@bo/runtime';
import { ledgerConsumer } from './ledger/ledger.consumer';
import { partnersMigrations } from './migrations';
import { getProfileHandler } from './organization/get-profile.handler';
import { setProfileHandler } from './organization/set-profile.handler';
import { createPartnerHandler } from './partner/create-partner.handler';
import { documentPartiesHandler } from './partner/document-parties.handler';
import { deletePartnerHandler } from './partner/delete-partner.handler';
import { editPartnerHandler } from './partner/edit-partner.handler';
import { getPartnerHandler } from './partner/get-partner.handler';
import { listPartnersHandler } from './partner/list-partners.handler';
import { partnerBalanceHandler } from './partner/partner-balance.handler';

export const partnersService: ServiceDefinition = {
  name: 'partners',
  migrations: partnersMigrations,
  handlers: [
    listPartnersHandler,
    partnerBalanceHandler,
    createPartnerHandler,
    editPartnerHandler,
    deletePartnerHandler,
    getPartnerHandler,
    documentPartiesHandler,
    getProfileHandler,
    setProfileHandler,
  ],
  subscriptions: [ledgerConsumer],
};
