import { existingTables, queryEventually } from '../database';
import { undeliveredEvents, workState } from '../drain';
import { examples, nearestFault, type Check, type Violation } from './types';

/** No answer was ever a 500: an outage is a 503/504 the client may retry, never an internal error. */
export const no500Check: Check = {
  name: 'no-500',
  title: 'no 500 answered, during the faults or after',
  run(ctx) {
    const all = ctx.client.serverErrors;
    const fives = all.filter((e) => e.attempt.status === 500);
    const byOp = new Map<string, number>();
    for (const e of fives) byOp.set(e.write?.op ?? e.path, (byOp.get(e.write?.op ?? e.path) ?? 0) + 1);
    const byFault = new Map<string, number>();
    for (const e of fives) {
      const f = nearestFault(ctx.faults, e.attempt.at + e.attempt.ms).replace(/ \+[\d.]+s$/, '');
      byFault.set(f, (byFault.get(f) ?? 0) + 1);
    }
    const other = new Map<string, number>();
    for (const e of all)
      if (e.attempt.status !== 500)
        other.set(
          `${e.attempt.status} ${e.attempt.code ?? ''}`.trim(),
          (other.get(`${e.attempt.status} ${e.attempt.code ?? ''}`.trim()) ?? 0) + 1,
        );
    const violations: Violation[] = fives.length
      ? [
          {
            message: `${fives.length} answers were 500 (${[...byOp].map(([op, n]) => `${n} x ${op}`).join(', ')}; after: ${[...byFault].map(([f, n]) => `${f} ${n}`).join(', ')})`,
            evidence: examples(fives, 8).map((e) => ({
              answered_after: nearestFault(ctx.faults, e.attempt.at + e.attempt.ms),
              phase: e.phase,
              op: e.write?.op ?? e.path,
              key: e.write?.key,
              at: new Date(e.attempt.at + e.attempt.ms).toISOString(),
              request_id: e.attempt.requestId,
              code: e.attempt.code,
              message: e.attempt.message,
            })),
          },
        ]
      : [];
    return Promise.resolve({
      summary: `other 5xx seen (retryable): ${[...other].map(([k, n]) => `${n} x ${k}`).join(', ') || 'none'}`,
      violations,
    });
  },
};

/** Processes die only when killed, and everything comes back after every fault. */
export const processesCheck: Check = {
  name: 'processes',
  title: 'no process died by itself; every fault recovered',
  run(ctx) {
    const violations: Violation[] = [];
    const exits = ctx.fleet.unexpectedExits();
    if (exits.length) {
      violations.push({
        message: `${exits.length} processes exited without being killed`,
        evidence: exits.map((e) => ({ ...e, at: new Date(e.at).toISOString(), log: ctx.fleet.logFile(e.name) })),
      });
    }
    const stuck = ctx.faults.filter((f) => !f.recovered || f.error);
    if (stuck.length) {
      violations.push({
        message: `${stuck.length} faults were not recovered from in ${ctx.options.recoverTimeoutMs / 1000}s (or failed to inject)`,
        evidence: stuck,
      });
    }
    if (ctx.client.keyEchoMismatches.length) {
      violations.push({
        message: `${ctx.client.keyEchoMismatches.length} answers echoed another Idempotency-Key than the one sent`,
        evidence: examples(ctx.client.keyEchoMismatches),
      });
    }
    const slowest = Math.max(0, ...ctx.faults.map((f) => f.recoverMs));
    return Promise.resolve({
      summary: `${ctx.fleet.exits.length} exits (${exits.length} unexpected), ${ctx.faults.length} faults, slowest recovery ${slowest} ms`,
      violations,
    });
  },
};

/** Every outbox row published, and every event in the inbox of each consumer owed it (subscribed, and routed where routed: drain.ts). */
export const eventsCheck: Check = {
  name: 'events',
  title: 'outboxes drained; every event reached every subscriber owed it',
  async run(ctx) {
    const state = await workState(ctx.pool, ctx.broker);
    const violations: Violation[] = [];
    const unpublished = Object.entries(state.unpublished).filter(([, n]) => n > 0);
    if (unpublished.length)
      violations.push({ message: `outbox rows never published: ${unpublished.map(([s, n]) => `${s} ${n}`).join(', ')}` });
    const undelivered = Object.entries(await undeliveredEvents(ctx.pool)).filter(([, v]) => v.count > 0);
    for (const [consumer, v] of undelivered)
      violations.push({ message: `${v.count} events never applied by ${consumer}`, evidence: v.examples });
    const queued = Object.entries(state.queued).filter(([, n]) => n > 0);
    if (queued.length) violations.push({ message: `messages still queued: ${queued.map(([q, n]) => `${q} ${n}`).join(', ')}` });
    if (state.dueContracts) violations.push({ message: `${state.dueContracts} recurring contracts still have a due child not made` });
    const tables = await outboxTables(ctx.pool);
    const [events] = await queryEventually<{ n: string }>(
      ctx.pool,
      `select coalesce(sum(n), 0) as n from (${tables.map((t) => `select count(*) as n from ${t}`).join(' union all ') || 'select 0 as n'}) x`,
    );
    return {
      summary: `${events?.n ?? 0} events in ${tables.length} outboxes, all published and applied`.replace(
        ', all published and applied',
        violations.length ? '' : ', all published and applied',
      ),
      violations,
    };
  },
};

async function outboxTables(pool: Parameters<typeof existingTables>[0]): Promise<string[]> {
  return [...(await existingTables(pool))]
    .filter((t) => t.endsWith('.outbox'))
    .map((t) =>
      t
        .split('.')
        .map((p) => `"${p}"`)
        .join('.'),
    );
}

/** No event given up on: the `.dead` queues are empty (and the dead-letter tables, where a schema has one). */
export const deadLettersCheck: Check = {
  name: 'dead-letters',
  title: 'no dead letters',
  async run(ctx) {
    const dead = ctx.broker.queues('dead');
    const stats = await ctx.broker.statsEventually(30_000, dead);
    const violations: Violation[] = [];
    for (const s of stats) {
      if (!s.exists) violations.push({ message: `dead-letter queue ${s.queue} does not exist` });
      else if (s.messages > 0) violations.push({ message: `${s.messages} messages in ${s.queue}` });
    }
    for (const t of [...(await existingTables(ctx.pool))].filter((x) => x.endsWith('.event_dead_letters'))) {
      const rows = await queryEventually<{ consumer: string; type: string; last_error: string }>(
        ctx.pool,
        `select consumer, type, last_error from ${t} limit 5`,
      );
      if (rows.length) violations.push({ message: `dead letters recorded in ${t}`, evidence: rows });
    }
    return { summary: `${dead.length} dead-letter queues looked at: ${dead.join(', ')}`, violations };
  },
};
