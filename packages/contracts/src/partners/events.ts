import { defineEvent } from '../events';
import { partnerRecord } from './schemas';

export const partnerCreated = defineEvent({
  type: 'partners.partner.created',
  summary: 'A partner was created; data is the partner record',
  data: partnerRecord,
});
export const partnerUpdated = defineEvent({
  type: 'partners.partner.updated',
  summary: 'A partner was edited; data is the partner record after the edit',
  data: partnerRecord,
});
export const partnerDeleted = defineEvent({
  type: 'partners.partner.deleted',
  summary: 'A partner was soft-deleted; data is the partner record as it was',
  data: partnerRecord,
});

export const partnersEvents = [partnerCreated, partnerUpdated, partnerDeleted];
