import { partners } from '@bo/contracts';
import type { InboxHandlerDef } from '@bo/runtime';

/**
 * A deleted partner is billed no more: its active or paused recurring contracts stop (cancelled,
 * with the reason), in the inbox transaction, so the scheduler never picks them again.
 */
export const recurringPartnersConsumer: InboxHandlerDef = {
  name: 'invoicing.recurring-partners',
  events: [partners.partnerDeleted.type],
  async handle(trx, event, log) {
    // Only the id matters here; the rest of the record is the read model's business.
    const partner = partners.partnerDeleted.data.pick({ id: true }).parse(event.data);
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
    if (stopped.length) log.info({ partner_id: partner.id, contracts: stopped.length }, 'recurring contracts of a deleted partner stopped');
  },
};
