import { consumer, partners } from '@bo/contracts';
import { bindConsumer } from '@bo/runtime';

/**
 * A deleted partner is billed no more: its active or paused recurring contracts stop (cancelled,
 * with the reason), so the scheduler never picks them again. A batch of deletions is one update with
 * its inbox rows, one statement: stopping a stopped contract again changes nothing.
 */
// Only the id matters here, so a record older or newer than today's contract still stops them.
export const recurringPartnersConsumer = bindConsumer(consumer.invoicingRecurringPartners).reading(
  partners.partnerRecord.pick({ id: true }),
  {
    statement(deleted) {
      return {
        sql: `update invoices i
                 set recurring_status = 'cancelled', recurring_next_run_date = null,
                     recurring_cancellation_reason = 'Partner ' || d.partner_id || ' was deleted', updated_at = now()
                from unnest(?::int[], ?::int[]) as d(org_id, partner_id)
               where i.org_id = d.org_id and i.partner_id = d.partner_id and i.recurring_enabled
                 and i.recurring_status in ('active', 'paused')`,
        bindings: [deleted.map((e) => e.org_id), deleted.map((e) => e.data.id)],
      };
    },
    applied(stopped, log) {
      if (stopped > 0) log.info({ stopped }, 'recurring contracts of deleted partners stopped');
    },
  },
);
