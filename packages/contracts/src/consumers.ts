import { events } from './catalogue';
import type { ServiceName } from './operation';
import * as invoicing from './invoicing';
import * as organization from './organization';
import * as partners from './partners';
import * as sales from './sales';

/**
 * A durable event consumer: its queue is `<prefix>.<name>`, bound to the events exchange by each
 * event type it takes, and its inbox key is `name`. Declared here, beside the events, so the AsyncAPI
 * document says who receives what; a launcher test fails when a service subscribes otherwise.
 */
export interface ConsumerDef {
  name: string;
  service: ServiceName;
  summary: string;
  events: readonly string[];
  /**
   * Of `events`, it gets only the types routed to it at the time (Subscription.routes): webhooks',
   * those some enabled endpoint subscribes to. Absent: every one of them.
   */
  routed?: true;
}

const partnerRecordEvents = [partners.partnerCreated.type, partners.partnerUpdated.type, partners.partnerDeleted.type];

/** Every event consumer of the system. */
export const consumers: readonly ConsumerDef[] = [
  {
    name: 'partners.ledger',
    service: 'partners',
    summary:
      'Moves partner balances and committed amounts (the partner ledger) from invoices, payments, allocations, refunds, voids, write-offs and quotation conversions',
    events: [
      invoicing.invoiceValidated.type,
      invoicing.invoiceCancelled.type,
      invoicing.invoicePaymentRegistered.type,
      sales.quotationConverted.type,
      invoicing.paymentCreated.type,
      invoicing.paymentAllocated.type,
      invoicing.paymentRefunded.type,
      invoicing.paymentVoided.type,
      invoicing.invoiceWrittenOff.type,
    ],
  },
  {
    name: 'sales.partner-directory',
    service: 'sales',
    summary:
      "Keeps sales' partner read model (names for lists and search, type for the role rules, currency, deleted), newest version winning",
    events: partnerRecordEvents,
  },
  {
    name: 'invoicing.partners',
    service: 'invoicing',
    summary: "Keeps invoicing's partner read model (names for lists and search, type for the role rules, deleted), newest version winning",
    events: partnerRecordEvents,
  },
  {
    name: 'sales.organization',
    service: 'sales',
    summary: "Keeps the organization's time zone, which dates quotations' expiry",
    events: [organization.organizationUpdated.type],
  },
  {
    name: 'invoicing.organization',
    service: 'invoicing',
    summary:
      "Keeps the organization's time zone, which dates overdue, the recurring scheduler's due day and default invoice and payment dates",
    events: [organization.organizationUpdated.type],
  },
  {
    name: 'catalog.documents',
    service: 'catalog',
    summary:
      'Moves stock for the inventory lines of validated invoices, credit notes and bills (one ledger move per product, referencing the document)',
    events: [invoicing.invoiceValidated.type],
  },
  {
    name: 'invoicing.recurring-partners',
    service: 'invoicing',
    summary: 'Stops the recurring contracts of a deleted partner, with the reason',
    events: [partners.partnerDeleted.type],
  },
  {
    name: 'webhooks.deliveries',
    service: 'webhooks',
    summary:
      "Queues a signed webhook delivery of every event to each endpoint of the event's organization whose events match it; an event type is routed to it only while some enabled endpoint subscribes to it (docs/webhooks.md)",
    events: events.map((e) => e.type),
    routed: true,
  },
];

/** The service that publishes an event: the first segment of its type (`partners.partner.created`). */
export function publisherOf(type: string): string {
  return type.slice(0, type.indexOf('.'));
}
