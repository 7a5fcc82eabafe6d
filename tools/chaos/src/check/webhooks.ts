import { existingTables, queryEventually } from '../database';
import { examples, type Check, type Violation } from './types';

/**
 * Every event of the organizations (from every outbox) reached the chaos receiver at least once,
 * under its own id as webhook-id, signed; however often the webhooks instances were killed mid-attempt.
 */
export const webhooksCheck: Check = {
  name: 'webhooks',
  title: 'every event delivered to its webhook endpoint at least once, under one webhook-id, signed',
  async run(ctx) {
    const receiver = ctx.webhooks;
    if (!receiver) return { summary: 'no webhook receiver in this run', violations: [] };
    const outboxes = [...(await existingTables(ctx.pool))].filter((t) => t.endsWith('.outbox')).map((t) => t.split('.')[0] as string);
    const events = (
      await Promise.all(
        outboxes.map((schema) =>
          queryEventually<{ event_id: string; type: string; org_id: number }>(
            ctx.pool,
            `select event_id, type, org_id from "${schema}".outbox where org_id = any($1)`,
            [ctx.orgs],
          ),
        ),
      )
    ).flat();
    const violations: Violation[] = [];
    const missing = events.filter((e) => !receiver.received.has(e.event_id));
    if (missing.length)
      violations.push({ message: `${missing.length} events never delivered to the webhook receiver`, evidence: examples(missing, 8) });
    const mixed = [...receiver.received].filter(([id, r]) => r.payloadIds.size !== 1 || !r.payloadIds.has(id) || r.types.size !== 1);
    if (mixed.length)
      violations.push({
        message: `${mixed.length} webhook-ids carried another event's payload`,
        evidence: examples(mixed.map(([id, r]) => ({ id, payloads: [...r.payloadIds], types: [...r.types] }))),
      });
    if (receiver.badSignatures.length)
      violations.push({
        message: `${receiver.badSignatures.length} deliveries failed signature verification`,
        evidence: examples(receiver.badSignatures),
      });
    const [left] = await queryEventually<{ failed: string }>(
      ctx.pool,
      `select count(*) filter (where status = 'failed') as failed from webhooks.deliveries`,
    );
    if (Number(left?.failed ?? 0) > 0) violations.push({ message: `${left?.failed} webhook deliveries gave up` });
    const repeats = [...receiver.received.values()].reduce((n, r) => n + r.count - 1, 0);
    return {
      summary: `${events.length} events, ${receiver.received.size} webhook-ids received, ${repeats} repeats, ${receiver.failed} answered 500 on purpose`,
      violations,
    };
  },
};
