// The partner read model itself (names, type, deleted) is the shared one of @bo/runtime
// (read-models/partner-directory.ts); this file asks the partners service what it alone knows now.
import { partners } from '@bo/contracts';
import { AppError, BusError, downstreamTimeoutMs, notFound, requireLivePartner, type HandlerContext, type LivePartner } from '@bo/runtime';

export interface PartnerCredit {
  balance: number;
  /** What the partner owes as a customer, as the partners ledger has it. */
  receivable: number;
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
      throw new AppError(
        err.kind === 'timeout' ? 504 : 503,
        err.kind === 'timeout' ? 'timeout' : 'service_unavailable',
        `The partners service did not answer: ${err.message}`,
      );
    }
    throw err;
  }
}

/** A live partner of the organization (the shared read model, else the partners service); not found otherwise. */
export async function requirePartner(ctx: HandlerContext, partnerId: number): Promise<LivePartner> {
  return requireLivePartner(ctx, partnerId);
}
