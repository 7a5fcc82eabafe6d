import { consumer, type EventEnvelope } from '@bo/contracts';
import { bindConsumer } from '@bo/runtime';
import { cashStep } from './cash-plan';
import { decideLedger, ledgerKeys } from './ledger-decide';
import { ledgerStep, type LedgerStep } from './ledger-plan';
import { ledgerState, loadLedger, storeLedger } from './ledger.repository';

/**
 * Moves partner balances and committed amounts from invoicing and sales events, exactly once per
 * event (the inbox) and once per document, payment or commitment (their natural keys): every effect
 * is an addition, so events for one invoice may be applied in any order.
 *
 * A batch is load → decide → store, two statements whatever its size and no transaction: one read
 * of everything its events name (ledger.repository.ts loadLedger), a pure decision applying them in
 * order (ledger-decide.ts), and one statement writing every effect with the events' inbox rows
 * (storeLedger). Should another instance have moved a partner or a commitment of the batch between
 * the two, the store's counts differ from the plan's, it fails whole, and the batch is decided again
 * on what is then there. Under a burst of validations the ledger keeps up instead of queueing, and a
 * partner's balance shows an invoice within milliseconds of its validation.
 */
export const ledgerConsumer = bindConsumer(consumer.partnersLedger).to({
  plan: {
    load: (events) => loadLedger(ledgerKeys(steps(events))),
    store(events, loaded, log) {
      const plan = decideLedger(steps(events), ledgerState(loaded));
      for (const event of plan.unhandled) log.warn({ event_id: event.id, type: event.type }, 'event type not handled by the ledger');
      for (const { event, partner_id } of plan.unknownPartner)
        log.error({ event_id: event.id, type: event.type, partner_id }, 'event names a partner this organization does not have; ignored');
      return storeLedger(plan);
    },
  },
});

/** What each event asks of the ledger: cash application events (cash-plan.ts), else invoices, payments and conversions. */
const steps = (events: readonly EventEnvelope[]): LedgerStep[] => events.map((event) => cashStep(event) ?? ledgerStep(event));
