import { organization, partners, type RpcReply } from '@bo/contracts';
import type { z } from 'zod';
import { AppError, BusError } from './errors';
import type { HandlerContext } from './service';
import { downstreamTimeoutMs } from './service';

/**
 * The two parties of a document as the partners service holds them now: the organization profile
 * (with its logo) and the partner record (structured address, country, tax number). Rendering asks
 * for them rather than keeping copies: a render is a rare read of one row each, and the profile's
 * logo (up to 256 kB) is not in its event. `partner` is null when the partner is deleted or unknown.
 */
export interface DocumentParties {
  organization: organization.ProfileRecord;
  partner: partners.PartnerRecord | null;
}

type Ctx = Pick<HandlerContext, 'bus' | 'config' | 'orgId' | 'userId' | 'requestId'>;

async function ask<R extends z.ZodType>(
  ctx: Ctx,
  operation: string,
  body: Record<string, unknown>,
  reply: R,
  what: string,
): Promise<z.output<R> | null> {
  let answer: RpcReply;
  try {
    answer = await ctx.bus.request(
      operation,
      body,
      { orgId: ctx.orgId, userId: ctx.userId, requestId: ctx.requestId },
      downstreamTimeoutMs(ctx.config),
    );
  } catch (err) {
    if (!(err instanceof BusError)) throw err;
    const timeout = err.kind === 'timeout';
    throw new AppError(
      timeout ? 504 : 503,
      timeout ? 'timeout' : 'service_unavailable',
      `The partners service could not be asked for ${what}: ${err.message}; retry later`,
    );
  }
  if (!answer.ok) {
    if (answer.code === 'not_found') return null;
    throw new AppError(
      answer.status >= 500 ? 503 : answer.status,
      answer.status >= 500 ? 'service_unavailable' : answer.code,
      answer.message,
    );
  }
  const parsed = reply.safeParse(answer.body);
  if (!parsed.success) throw new Error(`${operation} answered an unexpected body: ${parsed.error.message}`);
  return parsed.data;
}

/** Both parties, asked in parallel with no transaction open. */
export async function documentParties(ctx: Ctx, partnerId: number): Promise<DocumentParties> {
  const [profile, partner] = await Promise.all([
    ask(ctx, organization.getProfile.name, { org_id: String(ctx.orgId) }, organization.getProfile.reply, 'the organization profile'),
    ask(
      ctx,
      partners.getPartner.name,
      { org_id: String(ctx.orgId), partner_id: partnerId },
      partners.getPartner.reply,
      `partner ${partnerId}`,
    ),
  ]);
  if (!profile)
    throw new Error('partners.organization.get answered not_found; it answers an empty profile for an organization that has none');
  return { organization: profile.organization, partner: partner?.partner ?? null };
}
