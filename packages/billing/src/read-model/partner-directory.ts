import { normalizeIban, partners, type consumer } from '@bo/contracts';
import { z } from 'zod';
import {
  CallError,
  bindConsumer,
  type Knex,
  type InboxHandlerDef,
  type HandlerContext,
  keepNewest,
  keepNewestStatement,
  type VersionedRow,
  type VersionedTable,
} from '@bo/runtime';
import { liftPassedFence, partnerBeingDeleted } from './partner-delete-fence';
import { documentPartnerRefusals } from '../billing-refusals';

/**
 * The partner read model sales and invoicing keep (names for lists and search, type for the role
 * rules, currency, deleted), in a `partner_directory` table of each service's schema with the
 * columns below (each service's migrations create it). Fed by partners.partner.* events, and by the
 * partners service's answer for a partner whose created event has not arrived yet.
 */
export interface DirectoryPartner {
  org_id: number;
  id: number;
  partnername: string;
  display_name: string;
  /** Null only in rows kept before types were (they are asked of the partners service again). */
  partner_type: (typeof partners.partnerTypes)[number] | null;
  currency: string | null;
  /** The partner's own IBANs (its `bank_accounts`), normalized: a bank line from one names the partner. */
  ibans: string[];
  deleted_at: Date | null;
  version: number;
}

const DIRECTORY: VersionedTable = { table: 'partner_directory', key: ['org_id', 'id'], final: 'deleted_at' };

/**
 * What the read model takes of a partner record (an event's data or the partners service's answer):
 * only the fields it keeps, so a record with fields added later, or from before versions (version 0),
 * still applies.
 */
const keptRecord = partners.partnerRecord
  .pick({ id: true, orgid: true, partnername: true, display_name: true, partner_type: true, currency: true })
  .extend({
    version: z.number().int().min(0).default(0),
    bank_accounts: z.array(z.object({ iban: z.string() })).default([]),
  });
type KeptRecord = z.input<typeof keptRecord>;

/** Applies a partner record: the newest version wins, and a deletion is final, so order does not matter. */
export async function rememberPartner(db: Knex, record: KeptRecord, deleted = false): Promise<void> {
  await keepNewest(db, DIRECTORY, directoryRow(record, deleted), record.version ?? 0);
}

function directoryRow(record: KeptRecord, deleted: boolean): Record<string, Knex.Value> {
  return {
    org_id: record.orgid,
    id: record.id,
    partnername: record.partnername,
    display_name: record.display_name,
    partner_type: record.partner_type,
    currency: record.currency,
    // A PostgreSQL array literal: a list binding would be spread into several values. IBANs are letters and digits only.
    ibans: `{${[...new Set((record.bank_accounts ?? []).map((account) => normalizeIban(account.iban)))].join(',')}}`,
    deleted_at: deleted ? new Date() : null,
  };
}

export async function findPartner(db: Knex, orgId: number, partnerId: number): Promise<DirectoryPartner | undefined> {
  return db<DirectoryPartner>('partner_directory').where({ org_id: orgId, id: partnerId }).first();
}

/** The partner as the read model has it, and any delete fence on it. */
export interface PartnerAndFence {
  known: DirectoryPartner | undefined;
  fence: 'standing' | 'passed' | undefined;
}

/** The SQL of findPartnerAndFence's two columns, `directory` and `fence`, for the partner `k.id` of `k.org_id`. */
export const PARTNER_AND_FENCE_COLUMNS = `(select to_jsonb(d) from partner_directory d where d.org_id = k.org_id and d.id = k.id) as directory,
            (select case when f.fenced_until > now() then 'standing' else 'passed' end from partner_delete_fences f
              where f.org_id = k.org_id and f.partner_id = k.id) as fence`;

/** The partner and its fence from the columns PARTNER_AND_FENCE_COLUMNS read. */
export function partnerAndFenceOf(
  row: { directory: DirectoryPartner | null; fence: 'standing' | 'passed' | null } | undefined,
): PartnerAndFence {
  const directory = row?.directory;
  return {
    known: directory ? { ...directory, deleted_at: directory.deleted_at ? new Date(directory.deleted_at) : null } : undefined,
    fence: row?.fence ?? undefined,
  };
}

/** The partner as the read model has it, and any delete fence on it, in one round trip. */
async function findPartnerAndFence(db: Knex, orgId: number, partnerId: number): Promise<PartnerAndFence> {
  const { rows } = await db.raw<{ rows: Array<{ directory: DirectoryPartner | null; fence: 'standing' | 'passed' | null }> }>(
    `select ${PARTNER_AND_FENCE_COLUMNS} from (select ?::int as org_id, ?::int as id) k`,
    [orgId, partnerId],
  );
  return partnerAndFenceOf(rows[0]);
}

export type LivePartner = DirectoryPartner & { partner_type: NonNullable<DirectoryPartner['partner_type']> };

/**
 * A live partner of the organization: from the read model, else (not seen yet, or kept without its
 * type) asked of the partners service and remembered. Unknown, deleted or another organization's:
 * not found, naming `field`. Call it with no transaction open: it may wait on the partners service.
 */
export async function requireLivePartner(
  ctx: Pick<HandlerContext, 'db' | 'orgId' | 'call'>,
  partnerId: number,
  field = 'partner',
  /** The directory's row and fence when the caller read them already (documentPartyAndDefaults). */
  read?: PartnerAndFence,
): Promise<LivePartner> {
  const { known, fence } = read ?? (await findPartnerAndFence(ctx.db, ctx.orgId, partnerId));
  if (known?.deleted_at) throw documentPartnerRefusals.partnerNotFound(partnerId, field);
  // A delete of this partner is under way (partner-delete-fence.ts): wait for its outcome.
  if (fence === 'standing') throw partnerBeingDeleted(partnerId);
  if (known?.partner_type && !fence) return known as LivePartner;
  // Not known yet, or a fence has passed: the delete has happened or never will, and partners knows which.
  const record = await fetchPartner(ctx, partnerId);
  if (!record) {
    if (known)
      await ctx
        .db('partner_directory')
        .where({ org_id: ctx.orgId, id: partnerId })
        .whereNull('deleted_at')
        .update({ deleted_at: new Date() });
    throw documentPartnerRefusals.partnerNotFound(partnerId, field);
  }
  await rememberPartner(ctx.db, record);
  if (fence) await liftPassedFence(ctx.db, ctx.orgId, partnerId);
  const stored = await findPartner(ctx.db, ctx.orgId, partnerId);
  // A delete event may have landed between the answer and the write.
  if (!stored?.partner_type || stored.deleted_at) throw documentPartnerRefusals.partnerNotFound(partnerId, field);
  return stored as LivePartner;
}

/** Asks the partners service for a live partner; undefined when it has none. */
async function fetchPartner(ctx: Pick<HandlerContext, 'call'>, partnerId: number): Promise<KeptRecord | undefined> {
  try {
    const reply = await ctx.call(partners.getPartner, { partner_id: partnerId }, { what: `partner ${partnerId}` });
    return reply.partner;
  } catch (err) {
    if (err instanceof CallError && err.failure === 'refused' && err.code === 'not_found') return undefined;
    throw err;
  }
}

/**
 * The consumer keeping a service's partner directory from partners events, exactly once (inbox):
 * a batch of events is one upsert, whatever their number, run with its inbox rows as one statement
 * (keeping the newest version, an event applied twice leaves what it did once). It reads only the
 * fields it keeps, and an event it cannot read is logged and left: a later version puts it right.
 */
export function partnerDirectoryConsumer(contract: typeof consumer.salesPartnerDirectory): InboxHandlerDef {
  return bindConsumer(contract).reading(keptRecord, {
    malformed: 'skip',
    statement(events, log) {
      const records: VersionedRow[] = [];
      for (const event of events) {
        if (event.data.orgid !== event.org_id) {
          log
            .child({ event_id: event.id, type: event.type })
            .error({ orgid: event.data.orgid }, 'partner event whose record belongs to another organization; ignored');
        } else {
          records.push({ row: directoryRow(event.data, event.type === partners.partnerDeleted.type), version: event.data.version });
        }
      }
      return keepNewestStatement(DIRECTORY, records);
    },
  });
}
