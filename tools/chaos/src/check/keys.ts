import { canonicalJson } from '@bo/runtime';
import { describeAttempts, type WriteRecord } from '../client';
import { examples, type Check } from './types';

async function pool<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await work(items[next++] as T);
    }),
  );
}

const brief = (rec: WriteRecord) => ({ key: rec.key, op: rec.op, first: rec.status ?? rec.code, attempts: describeAttempts(rec.attempts) });

/**
 * No key is stuck, and a key answers the same however often it is sent: after recovery every key
 * the load used is sent again with its body. A 2xx must come back as the same 2xx with the same
 * body (same ids), a refusal as the same refusal, a write whose retries ran out during the faults
 * must now get a definite answer; 409 "still in progress" (a twin's transaction still running)
 * for longer than `stuckKeyMs` counts as stuck, a 5xx as a failure to recover.
 */
export const keysCheck: Check = {
  name: 'keys',
  title: 'no Idempotency-Key stuck; re-sending a key answers its first answer',
  async run(ctx) {
    const writes = ctx.client.writes;
    // First every key once; then the ones still "in progress" all together, until stuckKeyMs ran out.
    await pool(writes, 8, async (rec) => {
      rec.replay = await ctx.client.replay(rec, 0);
    });
    const waiting = writes.filter((rec) => rec.replay?.stuck);
    const deadline = Date.now() + ctx.options.stuckKeyMs;
    await pool(waiting, 32, async (rec) => {
      const earlier = rec.replay?.attempts ?? [];
      const again = await ctx.client.replay(rec, Math.max(0, deadline - Date.now()));
      rec.replay = { ...again, attempts: [...earlier, ...again.attempts] };
    });
    const stuck: WriteRecord[] = [];
    const failing: WriteRecord[] = [];
    const differs: Array<{ rec: WriteRecord; why: string }> = [];
    let resolved = 0;
    for (const rec of writes) {
      const r = rec.replay!;
      if (r.stuck) {
        stuck.push(rec);
        continue;
      }
      if (typeof r.status !== 'number' || r.status >= 500) {
        failing.push(rec);
        continue;
      }
      if (rec.outcome === 'unknown') {
        resolved += 1;
        continue;
      }
      if (r.status !== rec.status)
        differs.push({ rec, why: `first ${rec.status}${rec.code ? ` ${rec.code}` : ''}, now ${r.status}${r.code ? ` ${r.code}` : ''}` });
      else if (rec.outcome === 'ok' && canonicalJson(r.body) !== canonicalJson(rec.reply))
        differs.push({ rec, why: 'same status, another body' });
      else if (rec.outcome === 'refused' && r.code !== rec.code) differs.push({ rec, why: `first ${rec.code}, now ${r.code}` });
    }
    const violations = [];
    if (stuck.length) {
      violations.push({
        message: `${stuck.length} keys still answer 409 "in progress" ${ctx.options.stuckKeyMs / 1000}s after recovery (stuck)`,
        evidence: examples(stuck).map((rec) => ({ ...brief(rec), replay: describeAttempts(rec.replay?.attempts ?? []) })),
      });
    }
    if (failing.length) {
      violations.push({
        message: `${failing.length} keys answer 5xx or no answer after recovery`,
        evidence: examples(failing).map((rec) => ({ ...brief(rec), replay: `${rec.replay?.status} ${rec.replay?.code ?? ''}` })),
      });
    }
    if (differs.length) {
      const byWhy = new Map<string, number>();
      for (const d of differs) byWhy.set(`${d.rec.op}: ${d.why}`, (byWhy.get(`${d.rec.op}: ${d.why}`) ?? 0) + 1);
      violations.push({
        message: `${differs.length} keys answer differently when sent again (${[...byWhy].map(([k, n]) => `${n} x ${k}`).join('; ')})`,
        evidence: examples(differs).map((d) => ({
          ...brief(d.rec),
          why: d.why,
          first: JSON.stringify(d.rec.reply).slice(0, 300),
          again: JSON.stringify(d.rec.replay?.body).slice(0, 300),
        })),
      });
    }
    const unknown = writes.filter((w) => w.outcome === 'unknown').length;
    return {
      summary: `${writes.length} keys re-sent; ${unknown} had no definite answer during the faults (${resolved} settled now)`,
      violations,
    };
  },
};
