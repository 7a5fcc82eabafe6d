import type { HandlerContext, Knex } from '@bo/runtime';
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
 * in one statement (readDocumentParty); the partners service is asked only for a partner the
 * directory does not know yet.
 */
export async function documentPartyAndDefaults(
  ctx: Pick<HandlerContext, 'db' | 'orgId' | 'call'>,
  partnerId: number,
  field = 'partner',
): Promise<{ partner: LivePartner; defaults: DocumentDefaults }> {
  return documentPartyOf(ctx, partnerId, await readDocumentParty(ctx, partnerId), field);
}

/** What readDocumentParty read, to judge with documentPartyOf; `beside` the caller's own column. */
export interface DocumentPartyReading {
  row: Row;
  beside: unknown;
}

/**
 * The directory's row, its fence and the settings of a new document of `partnerId`, in one
 * statement, with `beside`, one more column of the caller's (SQL of a scalar, with its bindings)
 * read in the same statement: a write that first asks whether it was made already reads that there.
 */
export async function readDocumentParty(
  ctx: Pick<HandlerContext, 'db' | 'orgId'>,
  partnerId: number,
  beside: { sql: string; bindings: Knex.RawBinding[] } = { sql: 'null', bindings: [] },
): Promise<DocumentPartyReading> {
  const { rows } = await ctx.db.raw<{ rows: Array<Row & { beside: unknown }> }>(
    `select ${PARTNER_AND_FENCE_COLUMNS}, s.default_currency, s.rounding, s.cash_rounding, s.time_zone, s.org_id as settings_of,
            ${beside.sql} as beside
       from (select ?::int as org_id, ?::int as id) k left join organization_settings s on s.org_id = k.org_id`,
    [...beside.bindings, ctx.orgId, partnerId],
  );
  const { beside: column, ...row } = rows[0] as Row & { beside: unknown };
  return { row, beside: column };
}

/** The live partner and the defaults of a new document from what readDocumentParty read (documentPartyAndDefaults). */
export async function documentPartyOf(
  ctx: Pick<HandlerContext, 'db' | 'orgId' | 'call'>,
  partnerId: number,
  reading: DocumentPartyReading,
  field = 'partner',
): Promise<{ partner: LivePartner; defaults: DocumentDefaults }> {
  const { row } = reading;
  const partner = await requireLivePartner(ctx, partnerId, field, partnerAndFenceOf(row));
  return { partner, defaults: defaultsOf(row.settings_of === null ? undefined : row, partner.currency) };
}

type Row = Pick<OrganizationSettings, 'default_currency' | 'rounding' | 'cash_rounding' | 'time_zone'> & {
  directory: DirectoryPartner | null;
  fence: 'standing' | 'passed' | null;
  settings_of: number | null;
};
