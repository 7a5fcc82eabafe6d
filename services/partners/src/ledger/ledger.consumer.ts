import { invoicing, sales, type EventEnvelope } from '@bo/contracts';
import type { InboxHandlerDef, Knex, Logger } from '@bo/runtime';
import { documentEffect, paymentEffect, transactionTypeOf } from './balance-effects';

/**
 * Moves partner balances and committed amounts from invoicing and sales events. Each event runs in
 * the inbox transaction (exactly once); every effect is an addition, so events for one invoice may
 * be applied in any order.
 */
export const ledgerConsumer: InboxHandlerDef = {
  name: 'partners.ledger',
  events: [
    invoicing.invoiceValidated.type,
    invoicing.invoiceCancelled.type,
    invoicing.invoicePaymentRegistered.type,
    sales.quotationConverted.type,
  ],
  async handle(trx, event, log) {
    switch (event.type) {
      case invoicing.invoiceValidated.type:
        return onValidated(trx, event, log);
      case invoicing.invoiceCancelled.type:
        return releaseCommitment(trx, event.org_id, invoicing.invoiceCancelled.data.parse(event.data).invoice_id);
      case invoicing.invoicePaymentRegistered.type:
        return onPayment(trx, event, log);
      case sales.quotationConverted.type:
        return onConverted(trx, event, log);
      default:
        log.warn('event type not handled by the ledger');
    }
  },
};

async function partnerExists(trx: Knex.Transaction, orgId: number, partnerId: number, log: Logger): Promise<boolean> {
  const row = await trx('partners').select('id').where({ org_id: orgId, id: partnerId }).first<{ id: number } | undefined>();
  if (!row) log.error({ partner_id: partnerId }, 'event names a partner this organization does not have; ignored');
  return !!row;
}

async function moveBalance(trx: Knex.Transaction, partnerId: number, column: 'balance' | 'committed', delta: string): Promise<void> {
  await trx('partners')
    .where({ id: partnerId })
    .update({ [column]: trx.raw('?? + ?::numeric', [column, delta]), updated_at: trx.fn.now() });
}

async function onValidated(trx: Knex.Transaction, event: EventEnvelope, log: Logger): Promise<void> {
  const data = invoicing.invoiceValidated.data.parse(event.data);
  await releaseCommitment(trx, event.org_id, data.invoice_id);
  if (!(await partnerExists(trx, event.org_id, data.partner_id, log))) return;
  await postTransaction(trx, event, {
    partner_id: data.partner_id,
    type: transactionTypeOf(data.invoicetype),
    source: 'invoice',
    source_id: data.invoice_id,
    invoice_id: data.invoice_id,
    document_number: data.invoicenumber,
    date: data.invoicedatetime.slice(0, 10),
    amount: String(data.invoicetotal),
    effect: documentEffect(data.invoicetype, String(data.invoicetotal)).toFixed(),
  });
}

async function onPayment(trx: Knex.Transaction, event: EventEnvelope, log: Logger): Promise<void> {
  const data = invoicing.invoicePaymentRegistered.data.parse(event.data);
  if (!(await partnerExists(trx, event.org_id, data.partner_id, log))) return;
  await postTransaction(trx, event, {
    partner_id: data.partner_id,
    type: 'payment',
    source: 'payment',
    source_id: data.payment_id,
    invoice_id: data.invoice_id,
    document_number: data.invoicenumber,
    date: data.payment_date.slice(0, 10),
    amount: String(data.amount),
    effect: paymentEffect(data.invoicetype, String(data.amount)).toFixed(),
  });
}

interface LedgerEntry {
  partner_id: number;
  type: string;
  source: 'invoice' | 'payment';
  source_id: number;
  invoice_id: number;
  document_number: string;
  date: string;
  amount: string;
  effect: string;
}

/** Writes a transaction row and moves the balance by its effect, once per source document. */
async function postTransaction(trx: Knex.Transaction, event: EventEnvelope, entry: LedgerEntry): Promise<void> {
  const { effect, ...row } = entry;
  const inserted = await trx('partner_transactions')
    .insert({ ...row, org_id: event.org_id, balance_effect: effect, event_id: event.id })
    .onConflict(['org_id', 'source', 'source_id'])
    .ignore()
    .returning('id');
  if (inserted.length) await moveBalance(trx, entry.partner_id, 'balance', effect);
}

async function onConverted(trx: Knex.Transaction, event: EventEnvelope, log: Logger): Promise<void> {
  const data = sales.quotationConverted.data.parse(event.data);
  if (!(await partnerExists(trx, event.org_id, data.partner_id, log))) return;
  // If the invoice was validated or cancelled first, its placeholder row makes this a no-op.
  const inserted = await trx('commitments')
    .insert({
      org_id: event.org_id,
      invoice_id: data.invoice_id,
      partner_id: data.partner_id,
      quotation_id: data.quotation_id,
      quotation_number: data.quotation_number,
      amount: String(data.quotation_total),
      status: 'open',
    })
    .onConflict(['org_id', 'invoice_id'])
    .ignore()
    .returning('invoice_id');
  if (inserted.length) await moveBalance(trx, data.partner_id, 'committed', String(data.quotation_total));
}

/** Validation or cancellation ends a commitment; a placeholder stops a late conversion event adding one. */
async function releaseCommitment(trx: Knex.Transaction, orgId: number, invoiceId: number): Promise<void> {
  const placeholder = await trx('commitments')
    .insert({ org_id: orgId, invoice_id: invoiceId, amount: '0', status: 'released', released_at: trx.fn.now() })
    .onConflict(['org_id', 'invoice_id'])
    .ignore()
    .returning('invoice_id');
  if (placeholder.length) return;
  const released: Array<{ partner_id: number; amount: string }> = await trx('commitments')
    .where({ org_id: orgId, invoice_id: invoiceId, status: 'open' })
    .update({ status: 'released', released_at: trx.fn.now() })
    .returning(['partner_id', 'amount']);
  for (const r of released) await moveBalance(trx, r.partner_id, 'committed', `-${r.amount}`);
}
