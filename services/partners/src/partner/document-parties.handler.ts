import { partners } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { weighBalances } from '../ledger/currency-balances';
import { toProfileRecord } from '../organization/profile.record';
import { creditOf, toPartnerRecord } from './partner.record';
import { loadDocumentParties } from './partner.repository';

/**
 * One call for what issuing or rendering a document asks of this service: both parties, and the
 * credit when the caller checks it, read in one statement. The credit is weighed in the partner's
 * currency from the same reading of its balances as the party data.
 */
export const documentPartiesHandler = handler(partners.documentParties, async (req, ctx) => {
  const { profile, partner, balances } = await loadDocumentParties(ctx.db, ctx.orgId, req.partner_id, req.include_credit === true);
  return {
    message: partner ? 'Document parties found' : 'The organization profile; the partner is not found',
    organization: toProfileRecord(ctx.orgId, profile),
    partner: partner ? toPartnerRecord(partner) : null,
    credit:
      partner && req.include_credit
        ? creditOf(partner, weighBalances(balances ?? [], partner.currency, profile?.default_currency ?? null))
        : null,
  };
});
