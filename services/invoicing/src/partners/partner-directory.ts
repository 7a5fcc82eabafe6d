import { partners } from '@bo/contracts';
import { AppError, BusError, downstreamTimeoutMs, notFound, type HandlerContext, type Knex } from '@bo/runtime';

export interface PartnerEntry {
  id: number;
  partnername: string;
  display_name: string;
  deleted_at: Date | null;
}

/**
 * Keeps the newest version of a partner: events may arrive out of order, so an older record never
 * overwrites a newer one, and a deletion is final.
 */
export async function rememberPartner(db: Knex, orgId: number, record: partners.PartnerRecord, deleted = false): Promise<void> {
  const updatedAt = `${record.updated_at}Z`;
  await db.raw(
    `insert into partner_directory (org_id, id, partnername, display_name, source_updated_at, deleted_at)
     values (?, ?, ?, ?, ?, ?)
     on conflict (org_id, id) do update set
       partnername = case when excluded.source_updated_at >= partner_directory.source_updated_at then excluded.partnername else partner_directory.partnername end,
       display_name = case when excluded.source_updated_at >= partner_directory.source_updated_at then excluded.display_name else partner_directory.display_name end,
       source_updated_at = greatest(excluded.source_updated_at, partner_directory.source_updated_at),
       deleted_at = coalesce(partner_directory.deleted_at, excluded.deleted_at)`,
    [orgId, record.id, record.partnername, record.display_name, updatedAt, deleted ? new Date() : null],
  );
}

/**
 * A live partner of the organization: from the read model, else asked of the partners service
 * (its created event may not have arrived yet). Unknown, deleted or another organization's: not found.
 */
export async function requirePartner(ctx: HandlerContext, partnerId: number): Promise<void> {
  const known: PartnerEntry | undefined = await ctx.db('partner_directory').where({ org_id: ctx.orgId, id: partnerId }).first();
  if (known) {
    if (known.deleted_at) throw notFound('Partner', partnerId);
    return;
  }
  const reply = await askPartners(ctx, partners.getPartner.name, partnerId);
  if (!reply.ok) {
    if (reply.code === 'not_found') throw notFound('Partner', partnerId);
    throw new AppError(reply.status >= 500 ? reply.status : 503, 'service_unavailable', `Partner ${partnerId} could not be checked: ${reply.message}`);
  }
  const record = partners.getPartner.reply.parse(reply.body).partner;
  await rememberPartner(ctx.db, ctx.orgId, record);
}

export interface PartnerCredit {
  balance: number;
  credit_limit: number;
  available_credit: number;
}

/** The partner's balance and credit limit as the partners service has them now. */
export async function partnerCredit(ctx: HandlerContext, partnerId: number): Promise<PartnerCredit> {
  const reply = await askPartners(ctx, partners.partnerBalance.name, partnerId);
  if (!reply.ok) {
    if (reply.code === 'not_found') throw notFound('Partner', partnerId);
    throw new AppError(503, 'service_unavailable', `The credit limit of partner ${partnerId} could not be checked: ${reply.message}`);
  }
  return partners.partnerBalance.reply.parse(reply.body).partner;
}

async function askPartners(ctx: HandlerContext, operation: string, partnerId: number) {
  try {
    return await ctx.bus.request(
      operation,
      { org_id: ctx.orgId, partner_id: partnerId },
      { orgId: ctx.orgId, requestId: ctx.requestId, userId: ctx.userId },
      downstreamTimeoutMs(ctx.config),
    );
  } catch (err) {
    if (err instanceof BusError) {
      throw new AppError(err.kind === 'timeout' ? 504 : 503, err.kind === 'timeout' ? 'timeout' : 'service_unavailable', `The partners service did not answer: ${err.message}`);
    }
    throw err;
  }
}
