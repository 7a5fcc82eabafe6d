import type { HandlerContext } from '@bo/runtime';
import { defaultsOf, type DocumentDefaults } from './document-taxes';
import type { OrganizationSettings } from './read-model/organization-settings';
import {
  PARTNER_AND_FENCE_COLUMNS,
  partnerAndFenceOf,
  requireLivePartner,
  type DirectoryPartner,
  type LivePartner,
} from './read-model/partner-directory';

/**
 * What a new document of `partnerId` is made with, before its transaction: the live partner
 * (requireLivePartner: unknown, deleted or being deleted is refused naming `field`) and the
 * document's defaults (documentDefaults: the partner's currency, else the organization's, and the
 * organization's tax policy and time zone). The directory's row, its fence and the settings are read
 * in one statement; the partners service is asked only for a partner the directory does not know yet.
 */
export async function documentPartyAndDefaults(
  ctx: Pick<HandlerContext, 'db' | 'orgId' | 'call'>,
  partnerId: number,
  field = 'partner',
): Promise<{ partner: LivePartner; defaults: DocumentDefaults }> {
  const { rows } = await ctx.db.raw<{ rows: Array<Row> }>(
    `select ${PARTNER_AND_FENCE_COLUMNS}, s.default_currency, s.rounding, s.cash_rounding, s.time_zone, s.org_id as settings_of
       from (select ?::int as org_id, ?::int as id) k left join organization_settings s on s.org_id = k.org_id`,
    [ctx.orgId, partnerId],
  );
  const row = rows[0] as Row;
  const partner = await requireLivePartner(ctx, partnerId, field, partnerAndFenceOf(row));
  return { partner, defaults: defaultsOf(row.settings_of === null ? undefined : row, partner.currency) };
}

type Row = Pick<OrganizationSettings, 'default_currency' | 'rounding' | 'cash_rounding' | 'time_zone'> & {
  directory: DirectoryPartner | null;
  fence: 'standing' | 'passed' | null;
  settings_of: number | null;
};
