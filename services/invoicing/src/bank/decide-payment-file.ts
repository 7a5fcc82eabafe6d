import type { invoicing, ReplyOf } from '@bo/contracts';
import { formatDateTime, sum } from '@bo/kernel';
import { dueOfDocument } from '../domain/cash';
import { bankRefusals } from './bank-refusals';
import { renderPain001 } from './pain001';
import { endToEndIdOf, paymentFileBillRecord, type PaymentFileBillNew, type PaymentFileLoad, type PaymentFileRow } from './payment-files';

export type { PaymentFileLoad } from './payment-files';

/** A vendor's account, as the partners service says it (its first bank account, else its name and no IBAN). */
export interface Vendor {
  name: string;
  iban: string | null;
  bic: string | null;
}

/** What the gather step asked elsewhere and found: the bills named or due, their vendors' accounts, the organization's own, and the day to execute. */
export interface PaymentFileFacts {
  ids: number[];
  vendors: Array<[number, Vendor]>;
  debtor: Vendor;
  executionDate: string;
}

export type PaymentFilePlan =
  | { kind: 'none'; reply: ReplyOf<typeof invoicing.paymentFile> }
  | { kind: 'file'; file: PaymentFileRow; bills: PaymentFileBillNew[]; reply: ReplyOf<typeof invoicing.paymentFile> };

/**
 * A payment file decided (pure; docs/bank.md "Paying vendors"): with no bill due, none, and a reply
 * saying so; else refused when the organization has no IBAN to pay from, or when a bill named cannot
 * go in (not found, not a vendor bill, not open, not EUR, already in a file, its vendor without an
 * IBAN: every problem named); else one transfer per bill, in the order named, for what it still owes,
 * under the file id the load drew and at the time it read.
 */
export function decidePaymentFile(
  req: { bills?: number[] | undefined; due_by?: string | undefined },
  facts: PaymentFileFacts,
  load: PaymentFileLoad,
  orgId: number,
): PaymentFilePlan {
  const { ids, debtor, executionDate } = facts;
  const field = req.bills ? 'bills' : 'due_by';
  if (!ids.length)
    return {
      kind: 'none',
      reply: {
        message: `No open EUR vendor bill is due by ${req.due_by} outside a payment file`,
        payment_file: null,
        bills: [],
        content_base64: null,
      },
    };
  if (!debtor.iban) throw bankRefusals.noOrganizationIban(field);
  const byVendor = new Map(facts.vendors);
  const problems: string[] = [];
  for (const id of ids) {
    const bill = load.bills.get(id);
    if (!bill) problems.push(`bill ${id} not found`);
    else if (bill.invoicetype !== 'invoicein') problems.push(`${bill.invoicenumber} is not a vendor bill`);
    else if (bill.invoicestatus !== 'open' || dueOfDocument(bill).lte(0)) problems.push(`${bill.invoicenumber} is not open`);
    else if ((bill.currency ?? '') !== 'EUR')
      problems.push(`${bill.invoicenumber} is in ${bill.currency ?? 'no currency'}; SEPA transfers are in EUR`);
    else if (load.taken.has(id)) problems.push(`${bill.invoicenumber} is already in payment file ${load.taken.get(id)!}`);
    else if (!byVendor.get(bill.partner_id)?.iban) problems.push(`the vendor of ${bill.invoicenumber} has no IBAN in its bank_accounts`);
  }
  if (problems.length) throw bankRefusals.billsNotPayable(field, problems);

  const chosen = ids.map((id) => load.bills.get(id)!);
  const total = sum(chosen.map((b) => dueOfDocument(b)));
  const messageId = `PF-${orgId}-${load.fileId}`;
  const bills: PaymentFileBillNew[] = chosen.map((b) => ({
    org_id: orgId,
    file_id: load.fileId,
    invoice_id: b.id,
    partner_id: b.partner_id,
    amount: dueOfDocument(b).toFixed(2),
    creditor_iban: byVendor.get(b.partner_id)!.iban!,
    end_to_end_id: endToEndIdOf(load.fileId, b.id),
  }));
  const xml = renderPain001({
    message_id: messageId,
    created_at: (formatDateTime(load.now) ?? '').slice(0, 19),
    execution_date: executionDate,
    debtor_name: debtor.name,
    debtor_iban: debtor.iban,
    debtor_bic: debtor.bic,
    transfers: bills.map((r) => {
      const bill = load.bills.get(r.invoice_id)!;
      const vendor = byVendor.get(r.partner_id)!;
      return {
        end_to_end_id: r.end_to_end_id,
        amount: r.amount,
        creditor_name: vendor.name,
        creditor_iban: r.creditor_iban,
        creditor_bic: vendor.bic,
        remittance: bill.payment_reference ?? bill.invoicereference ?? bill.invoicenumber,
      };
    }),
  });
  const file: PaymentFileRow = {
    id: load.fileId,
    org_id: orgId,
    message_id: messageId,
    execution_date: executionDate,
    debtor_iban: debtor.iban,
    currency: 'EUR',
    total: total.toFixed(2),
    transfers: bills.length,
    content: xml,
    created_at: load.now,
  };
  return {
    kind: 'file',
    file,
    bills,
    reply: {
      message: `Payment file ${messageId}: ${bills.length} transfer(s), ${total.toFixed(2)} EUR`,
      payment_file: {
        id: file.id,
        message_id: messageId,
        execution_date: executionDate,
        debtor_iban: debtor.iban,
        currency: 'EUR',
        transfers: bills.length,
        total: Number(total.toFixed(2)),
      },
      bills: bills.map((r) =>
        paymentFileBillRecord({ ...r, id: 0, status: 'in_payment', line_id: null }, load.bills.get(r.invoice_id)!.invoicenumber),
      ),
      content_base64: Buffer.from(xml, 'utf8').toString('base64'),
    },
  };
}
