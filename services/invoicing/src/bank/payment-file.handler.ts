import { invoicing, organization, partners as partnerContracts } from '@bo/contracts';
import { formatDateTime, sum } from '@bo/kernel';
import { readSettings } from '@bo/billing';
import { handler } from '@bo/runtime';
import { bankRefusals } from './bank-refusals';
import { dueOfDocument } from '../domain/cash';
import { lockDocuments } from '../payment/payment.repository';
import { renderPain001 } from './pain001';
import {
  billsDueBy,
  billsInPayment,
  completePaymentFile,
  endToEndIdOf,
  insertPaymentFile,
  insertPaymentFileBills,
  partnersOfDocuments,
  paymentFileBillRecord,
} from './payment-files';
import { normalizeIban } from './statement';

/**
 * Pays vendor bills: a pain.001.001.09 credit-transfer file (EPC SEPA profile) from the
 * organization's bank account (its profile's IBAN) to each bill's vendor (the first IBAN of the
 * partner's `bank_accounts`), for what each bill still owes. The bills are then `in_payment`, each
 * under its transfer's end-to-end id, until the statement's debit line stating that id is reconciled
 * (on import, or by hand), which pays them.
 */
export const paymentFileHandler = handler(invoicing.paymentFile, {
  // The organization's account and the vendors' IBANs are the organization and partners services' to say.
  gather: async (req, ctx) => {
    if ((req.bills === undefined) === (req.due_by === undefined)) throw bankRefusals.billsOrDueByRequired();
    const profile = (await ctx.call(organization.getProfile, {}, { what: "the organization's bank account" })).organization;
    const ids = req.bills ? [...new Set(req.bills)] : await billsDueBy(ctx.db, ctx.orgId, req.due_by!);
    const partnerIds = await partnersOfDocuments(ctx.db, ctx.orgId, ids);
    const vendors: Array<[number, { name: string; iban: string | null; bic: string | null }]> = [];
    for (const { partner_id } of partnerIds) {
      const { partner } = await ctx.call(partnerContracts.getPartner, { partner_id }, { what: "the vendor's bank account" });
      const account = partner.bank_accounts[0];
      vendors.push([
        partner_id,
        { name: account?.name ?? partner.partnername, iban: normalizeIban(account?.iban ?? null), bic: account?.bic ?? null },
      ]);
    }
    return {
      ids,
      vendors,
      debtor: { name: profile.legal_name ?? 'Organization', iban: normalizeIban(profile.iban ?? null), bic: profile.bic ?? null },
      executionDate: req.execution_date ?? (await readSettings(ctx.db, ctx.orgId)).today(),
    };
  },
  apply: async (req, ctx, { ids, vendors, debtor, executionDate }) => {
    const db = ctx.db;
    const field = req.bills ? 'bills' : 'due_by';
    if (!ids.length)
      return {
        message: `No open EUR vendor bill is due by ${req.due_by} outside a payment file`,
        payment_file: null,
        bills: [],
        content_base64: null,
      };
    if (!debtor.iban) throw bankRefusals.noOrganizationIban(field);
    const byVendor = new Map(vendors);
    const bills = await lockDocuments(db, ctx.orgId, ids);
    const taken = await billsInPayment(db, ctx.orgId, ids);
    const problems: string[] = [];
    for (const id of ids) {
      const bill = bills.get(id);
      if (!bill) problems.push(`bill ${id} not found`);
      else if (bill.invoicetype !== 'invoicein') problems.push(`${bill.invoicenumber} is not a vendor bill`);
      else if (bill.invoicestatus !== 'open' || dueOfDocument(bill).lte(0)) problems.push(`${bill.invoicenumber} is not open`);
      else if ((bill.currency ?? '') !== 'EUR')
        problems.push(`${bill.invoicenumber} is in ${bill.currency ?? 'no currency'}; SEPA transfers are in EUR`);
      else if (taken.has(id)) problems.push(`${bill.invoicenumber} is already in payment file ${taken.get(id)!.file_id}`);
      else if (!byVendor.get(bill.partner_id)?.iban) problems.push(`the vendor of ${bill.invoicenumber} has no IBAN in its bank_accounts`);
    }
    if (problems.length) throw bankRefusals.billsNotPayable(field, problems);
    const chosen = ids.map((id) => bills.get(id)!);
    const total = sum(chosen.map((b) => dueOfDocument(b)));
    const file = await insertPaymentFile(db, {
      org_id: ctx.orgId,
      message_id: `pending-${ctx.operationKey}`.slice(0, 35),
      execution_date: executionDate,
      debtor_iban: debtor.iban,
      currency: 'EUR',
      total: total.toFixed(2),
      transfers: chosen.length,
    });
    const messageId = `PF-${ctx.orgId}-${file.id}`;
    const rows = await insertPaymentFileBills(
      db,
      chosen.map((b) => ({
        org_id: ctx.orgId,
        file_id: file.id,
        invoice_id: b.id,
        partner_id: b.partner_id,
        amount: dueOfDocument(b).toFixed(2),
        creditor_iban: byVendor.get(b.partner_id)!.iban!,
        end_to_end_id: endToEndIdOf(file.id, b.id),
      })),
    );
    const xml = renderPain001({
      message_id: messageId,
      created_at: (formatDateTime(file.created_at) ?? '').slice(0, 19),
      execution_date: executionDate,
      debtor_name: debtor.name,
      debtor_iban: debtor.iban,
      debtor_bic: debtor.bic,
      transfers: rows.map((r) => {
        const bill = bills.get(r.invoice_id)!;
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
    await completePaymentFile(db, file.id, messageId, xml);
    return {
      message: `Payment file ${messageId}: ${rows.length} transfer(s), ${total.toFixed(2)} EUR`,
      payment_file: {
        id: file.id,
        message_id: messageId,
        execution_date: executionDate,
        debtor_iban: debtor.iban,
        currency: 'EUR',
        transfers: rows.length,
        total: Number(total.toFixed(2)),
      },
      bills: rows.map((r) => paymentFileBillRecord(r, bills.get(r.invoice_id)!.invoicenumber)),
      content_base64: Buffer.from(xml, 'utf8').toString('base64'),
    };
  },
});
