import type { HandlerContext } from '@bo/runtime';

/** Who acts: the gateway passes `userid` as request metadata; internal callers may only put it in the body. */
export function actor(req: { userid?: string }, ctx: Pick<HandlerContext, 'userId'>): string | null {
  return ctx.userId ?? req.userid ?? null;
}
