import { consumer, partners } from '@bo/contracts';
import { bindConsumer } from '@bo/runtime';

/**
 * A deleted partner is billed no more: its active or paused recurring contracts stop (cancelled,
 * with the reason), in the inbox transaction, so the scheduler never picks them again.
 */
// Only the id matters here, so a record older or newer than today's contract still stops them.
export const recurringPartnersConsumer = bindConsumer(consumer.invoicingRecurringPartners).reading(
  partners.partnerRecord.pick({ id: true }),
  {
    on: {
      [partners.partnerDeleted.type]: async (trx, event, log) => {
        const partner = event.data;
        const stopped = await trx('invoices')
          .where({ org_id: event.org_id, partner_id: partner.id, recurring_enabled: true })
          .whereIn('recurring_status', ['active', 'paused'])
          .update({
            recurring_status: 'cancelled',
            recurring_next_run_date: null,
            recurring_cancellation_reason: `Partner ${partner.id} was deleted`,
            updated_at: trx.fn.now(),
          })
          .returning('id');
        if (stopped.length)
          log.info({ partner_id: partner.id, contracts: stopped.length }, 'recurring contracts of a deleted partner stopped');
      },
    },
  },
);
