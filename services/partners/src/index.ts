export { partnersService } from './service';
/** The partner record as the service answers it, for the bench's floor to be checked against (apps/launcher). */
export { toPartnerRecord, type PartnerRow } from './partner/partner.record';
