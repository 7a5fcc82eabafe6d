import { invoicing, organization, partners as partnerContracts } from '@bo/contracts';
import { readSettings } from '@bo/billing';
import { handler, unlessRefused } from '@bo/runtime';
import { bankRefusals } from './bank-refusals';
import { decidePaymentFile, type PaymentFileFacts, type Vendor } from './decide-payment-file';
import { billsDueBy, loadPaymentFile, partnersOfDocuments, paymentFileAlone, readPaymentFile, storePaymentFile } from './payment-files';
import { normalizeIban } from './statement';

/**
 * Pays vendor bills: a pain.001.001.09 credit-transfer file (EPC SEPA profile) from the
 * organization's bank account (its profile's IBAN) to each bill's vendor (the first IBAN of the
 * partner's `bank_accounts`), for what each bill still owes. The bills are then `in_payment`, each
 * under its transfer's end-to-end id, until the statement's debit line stating that id is reconciled
 * (on import, or by hand), which pays them.
 *
 * Gather (the accounts, elsewhere) → load → decide (decidePaymentFile) → store, optimistic as a rule:
 * the bills, the files they are in and the file's id read with no lock (one statement), the file
 * decided on them, and stored as one statement (`alone`) that locks the bills and writes the file and
 * its transfers only while every bill is the row read. When one moved meanwhile (paid, put in another
 * file), or the request is to be refused, the usual way decides under the bills' locks (`apply`).
 */
export const paymentFileHandler = handler(invoicing.paymentFile, {
  // The organization's account and the vendors' IBANs are the organization and partners services' to say.
  gather: async (req, ctx): Promise<PaymentFileFacts> => {
    if ((req.bills === undefined) === (req.due_by === undefined)) throw bankRefusals.billsOrDueByRequired();
    const profile = (await ctx.call(organization.getProfile, {}, { what: "the organization's bank account" })).organization;
    const ids = req.bills ? [...new Set(req.bills)] : await billsDueBy(ctx.db, ctx.orgId, req.due_by!);
    const partnerIds = await partnersOfDocuments(ctx.db, ctx.orgId, ids);
    const vendors: Array<[number, Vendor]> = [];
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
  // It asks the organization and partners services and reads: the store holds the operation key, no
  // claim of its own is written before.
  readOnlyGather: true,
  alone: async (req, ctx, facts) => {
    const { load, read } = await readPaymentFile(ctx.db, ctx.orgId, facts.ids);
    const plan = unlessRefused(() => decidePaymentFile(req, facts, load, ctx.orgId));
    if (plan?.kind !== 'file') return undefined;
    return { ...paymentFileAlone(plan, read), events: [], reply: plan.reply };
  },
  apply: async (req, ctx, facts) => {
    const plan = decidePaymentFile(req, facts, await loadPaymentFile(ctx.db, ctx.orgId, facts.ids), ctx.orgId);
    if (plan.kind === 'file') await storePaymentFile(ctx.db, plan);
    return plan.reply;
  },
});
