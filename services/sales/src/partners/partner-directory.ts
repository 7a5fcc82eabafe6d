import { partners, type RpcReply } from '@bo/contracts';
import { AppError, BusError, type HandlerContext, type Knex, downstreamTimeoutMs } from '@bo/runtime';

export interface DirectoryRow {
  org_id: number;
  id: number;
  partnername: string;
  display_name: string;
  currency: string | null;
  deleted: boolean;
}

/**
 * Applies a partner record to the read model. Newer records win by the partner's updated_at, and a
 * delete is final, so events and RPC answers may arrive in any order.
 */
export async function rememberPartner(db: Knex, record: partners.PartnerRecord, deleted: boolean): Promise<void> {
  await db.raw(
    `insert into partner_directory as d (org_id, id, partnername, display_name, currency, deleted, source_updated_at)
     values (?, ?, ?, ?, ?, ?, ?)
     on conflict (org_id, id) do update set
       partnername = case when excluded.source_updated_at >= d.source_updated_at then excluded.partnername else d.partnername end,
       display_name = case when excluded.source_updated_at >= d.source_updated_at then excluded.display_name else d.display_name end,
       currency = case when excluded.source_updated_at >= d.source_updated_at then excluded.currency else d.currency end,
       deleted = d.deleted or excluded.deleted,
       source_updated_at = greatest(d.source_updated_at, excluded.source_updated_at)`,
    [record.orgid, record.id, record.partnername, record.display_name, record.currency, deleted, `${record.updated_at}Z`],
  );
}

export async function findInDirectory(db: Knex, orgId: number, partnerId: number): Promise<DirectoryRow | undefined> {
  return db<DirectoryRow>('partner_directory').where({ org_id: orgId, id: partnerId }).first();
}

function partnerNotFound(partnerId: number): AppError {
  const message = `Partner ${partnerId} not found`;
  return new AppError(400, 'not_found', message, [{ field: 'partner', message }]);
}

/** Asks the partners service for a partner the read model has not seen yet; undefined when it has none. */
async function fetchPartner(ctx: HandlerContext, partnerId: number): Promise<partners.PartnerRecord | undefined> {
  let reply: RpcReply;
  try {
    reply = await ctx.bus.request(
      partners.getPartner.name,
      { org_id: String(ctx.orgId), partner_id: partnerId },
      { orgId: ctx.orgId, userId: ctx.userId, requestId: ctx.requestId },
      downstreamTimeoutMs(ctx.config),
    );
  } catch (err) {
    if (err instanceof BusError) throw new AppError(503, 'service_unavailable', `The partners service could not be asked about partner ${partnerId}; retry later`);
    throw err;
  }
  if (reply.ok) {
    const parsed = partners.getPartner.reply.safeParse(reply.body);
    if (!parsed.success) throw new Error(`partners.partner.get answered an unexpected body: ${parsed.error.message}`);
    return parsed.data.partner;
  }
  if (reply.code === 'not_found') return undefined;
  throw new AppError(reply.status >= 500 ? 503 : reply.status, reply.status >= 500 ? 'service_unavailable' : reply.code, reply.message);
}

/** A live partner of the organization, from the read model or, for one not seen yet, the partners service. */
export async function requireLivePartner(ctx: HandlerContext, partnerId: number): Promise<DirectoryRow> {
  const known = await findInDirectory(ctx.db, ctx.orgId, partnerId);
  if (known) {
    if (known.deleted) throw partnerNotFound(partnerId);
    return known;
  }
  const record = await fetchPartner(ctx, partnerId);
  if (!record) throw partnerNotFound(partnerId);
  await rememberPartner(ctx.db, record, false);
  const stored = await findInDirectory(ctx.db, ctx.orgId, partnerId);
  // A delete event may have landed between the answer and the upsert.
  if (!stored || stored.deleted) throw partnerNotFound(partnerId);
  return stored;
}

/**
 * The partner's currency for the total view. Every quotation's partner is in the read model (create
 * puts it there and rows are never removed); a deleted partner keeps its currency.
 */
export async function partnerCurrency(db: Knex, orgId: number, partnerId: number): Promise<string | null> {
  return (await findInDirectory(db, orgId, partnerId))?.currency ?? null;
}
