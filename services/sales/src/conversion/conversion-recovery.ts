import { randomUUID } from 'node:crypto';
import { AppError, caller, isTransientConflict, periodicTask, type BackgroundTask, type Bus, type OutboxRelay } from '@bo/runtime';
import { CONVERTIBLE } from '../quotation/quotation-rules';
import type { QuotationRow } from '../quotation/quotation.record';
import { askInvoicing, claimAttempt, complete, completionFailed, conversionTiming, type Attempt, type ConversionDeps } from './conversion';
import { freezeOf, type ConvertReply, type Driver } from './decide-claim';

/** Bounded so one pass cannot run forever; the next pass takes the rest. */
const MAX_PER_PASS = 100;

/**
 * Finishes conversions nobody finishes: a sales instance that died after invoicing answered, or a
 * client that never retried after an unknown outcome. A quotation is taken once it has been frozen
 * with no attempt for a few RPC timeouts (conversionTiming), claimed with FOR UPDATE SKIP LOCKED and
 * then held by the attempt's lease, so several instances never work on one quotation at once. It is
 * finished like a client's retry would: completed with the invoice, or unfrozen if invoicing refuses.
 * Returns how many it completed.
 */
export async function recoverConversions(deps: ConversionDeps & { bus: Bus }, shouldStop: () => boolean = () => false): Promise<number> {
  const { staleMs } = conversionTiming(deps.config);
  let completed = 0;
  for (let i = 0; i < MAX_PER_PASS && !shouldStop(); i++) {
    const attempt = await deps.db.transaction(async (trx): Promise<Attempt | undefined> => {
      const q = await trx<QuotationRow>('quotations')
        .whereNotNull('conversion_attempted_at')
        .whereIn('status', CONVERTIBLE)
        // Frozen before conversions recorded what they asked for: only a client's convert can say.
        .whereNotNull('convert_invoicetype')
        .whereRaw('coalesce(conversion_lease_until, conversion_attempted_at) < now() - make_interval(secs => ?)', [staleMs / 1000])
        .orderByRaw('coalesce(conversion_lease_until, conversion_attempted_at)')
        .first()
        .forUpdate()
        .skipLocked();
      if (!q?.convert_invoicetype) return undefined;
      const driver: Driver = { actor: q.convert_user };
      const freeze = freezeOf(q, q.convert_invoicetype, driver, { nowMs: Date.now(), rpcTimeoutMs: deps.config.RPC_TIMEOUT_MS });
      return claimAttempt(trx, q, freeze, driver, deps.config);
    });
    if (!attempt) break;
    const log = deps.log.child({ quotation_id: attempt.quotation.id, org_id: attempt.quotation.org_id });
    try {
      const reply = await finish(deps, attempt);
      completed += 1;
      log.info({ invoice_id: reply.invoice.id }, 'conversion recovered: the quotation is converted');
    } catch (err) {
      // Each attempt ended itself: unfrozen on a refusal, released when still pending (taken again later).
      if (err instanceof AppError && err.status < 500)
        log.info({ code: err.code, reason: err.message }, 'conversion recovery: ended without converting');
      else log.warn({ err: (err as Error).message }, 'conversion recovery: still pending; will try again');
    }
  }
  return completed;
}

/** Steps 2 and 3 of a claimed attempt, as the recovery task takes them: on its own behalf, in a transaction of its own. */
async function finish(deps: ConversionDeps & { bus: Bus }, attempt: Attempt): Promise<ConvertReply> {
  const q = attempt.quotation;
  const call = caller(deps.bus, deps.config, {
    orgId: q.org_id,
    userId: attempt.driver.actor ?? undefined,
    requestId: `conversion-recovery-${randomUUID()}`,
  });
  const invoice = await askInvoicing(deps, call, attempt);
  try {
    return await deps.db.transaction((trx) => complete(trx, attempt, invoice));
  } catch (err) {
    if (err instanceof AppError || isTransientConflict(err)) throw err;
    return completionFailed(deps, attempt, invoice, err);
  }
}

/** The recovery inside the service: a pass at start-up, then one every interval; stop() waits for a pass in flight. */
export function conversionRecovery(deps: ConversionDeps & { bus: Bus; relay: OutboxRelay }, intervalMs: number): BackgroundTask {
  const log = deps.log.child({ task: 'conversion-recovery' });
  return periodicTask('conversion-recovery', intervalMs, deps.log, async (stopping) => {
    if ((await recoverConversions({ ...deps, log }, stopping)) > 0) deps.relay.kick();
  });
}
