import { events } from './catalogue';
import type { EventDef } from './events';
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
export interface ConsumerDef<E extends EventDef = EventDef> {
  name: string;
  service: ServiceName;
  summary: string;
  /** The events it takes, as contracts: a consumer bound to it (runtime `bindConsumer`) gets their data parsed. */
  takes: readonly E[];
  /** Their types, which its queue is bound by. */
  events: readonly string[];
  /**
   * Of `events`, it gets only the types routed to it at the time (Subscription.routes): webhooks',
   * those some enabled endpoint subscribes to. Absent: every one of them.
   */
  routed?: true;
}

/** A consumer's contract: its queue is bound by the types of the events it takes. */
function defineConsumer<E extends EventDef>(def: Omit<ConsumerDef<E>, 'events'>): ConsumerDef<E> {
  return { ...def, events: def.takes.map((e) => e.type) };
}

const partnerRecordEvents = [partners.partnerCreated, partners.partnerUpdated, partners.partnerDeleted];

const partnersLedger = defineConsumer({
  name: 'partners.ledger',
  service: 'partners',
  summary:
    'Moves partner balances and committed amounts (the partner ledger) from invoices, payments, allocations, refunds, voids, write-offs and quotation conversions',
  takes: [
    invoicing.invoiceValidated,
    invoicing.invoiceCancelled,
    invoicing.invoicePaymentRegistered,
    sales.quotationConverted,
    invoicing.paymentCreated,
    invoicing.paymentAllocated,
    invoicing.paymentRefunded,
    invoicing.paymentVoided,
    invoicing.invoiceWrittenOff,
  ],
});

const salesPartnerDirectory = defineConsumer({
  name: 'sales.partner-directory',
  service: 'sales',
  summary:
    "Keeps sales' partner read model (names for lists and search, type for the role rules, currency, deleted), newest version winning",
  takes: partnerRecordEvents,
});

const invoicingPartners = defineConsumer({
  name: 'invoicing.partners',
  service: 'invoicing',
  summary: "Keeps invoicing's partner read model (names for lists and search, type for the role rules, deleted), newest version winning",
  takes: partnerRecordEvents,
});

const salesOrganization = defineConsumer({
  name: 'sales.organization',
  service: 'sales',
  summary: "Keeps the organization's time zone, which dates quotations' expiry",
  takes: [organization.organizationUpdated],
});

const invoicingOrganization = defineConsumer({
  name: 'invoicing.organization',
  service: 'invoicing',
  summary:
    "Keeps the organization's time zone, which dates overdue, the recurring scheduler's due day and default invoice and payment dates",
  takes: [organization.organizationUpdated],
});

const catalogDocuments = defineConsumer({
  name: 'catalog.documents',
  service: 'catalog',
  summary:
    'Moves stock for the inventory lines of validated invoices, credit notes and bills (one ledger move per product, referencing the document)',
  takes: [invoicing.invoiceValidated],
});

const invoicingRecurringPartners = defineConsumer({
  name: 'invoicing.recurring-partners',
  service: 'invoicing',
  summary: 'Stops the recurring contracts of a deleted partner, with the reason',
  takes: [partners.partnerDeleted],
});

const webhooksDeliveries = defineConsumer({
  name: 'webhooks.deliveries',
  service: 'webhooks',
  summary:
    "Queues a signed webhook delivery of every event to each endpoint of the event's organization whose events match it; an event type is routed to it only while some enabled endpoint subscribes to it (docs/webhooks.md)",
  takes: events,
  routed: true,
});

/** Each event consumer's contract by name, for the service that binds it (runtime `bindConsumer`). */
export const consumer = {
  partnersLedger,
  salesPartnerDirectory,
  invoicingPartners,
  salesOrganization,
  invoicingOrganization,
  catalogDocuments,
  invoicingRecurringPartners,
  webhooksDeliveries,
};

/** Every event consumer of the system. */
export const consumers: readonly ConsumerDef[] = Object.values(consumer);

/** The service that publishes an event: the first segment of its type (`partners.partner.created`). */
export function publisherOf(type: string): string {
  return type.slice(0, type.indexOf('.'));
}
