import { invoicing } from '@bo/contracts';
import { dec } from '@bo/kernel';
import { handler } from '@bo/runtime';
import { requireLivePartner } from '@bo/billing';
import { lockDocuments } from '../payment/payment.repository';
import { bankRefusals } from './bank-refusals';
import { findLine, lineRecords } from './bank.repository';
import { reconcileLine, type ReconcileChoice } from './reconcile';

/**
 * Reconciles a line by hand: a payment of its money allocated to the documents named (or the
 * partner's credit), a posted payment already recorded, or a posting to an account.
 */
export const reconcileBankLineHandler = handler(invoicing.reconcileBankLine, {
  gather: async (req, ctx) => {
    if (req.partner !== undefined) await requireLivePartner(ctx, req.partner);
    return {};
  },
  apply: async (req, ctx) => {
    const db = ctx.db;
    const chosen = [
      req.allocations,
      req.partner !== undefined && !req.allocations ? req.partner : undefined,
      req.payment_id,
      req.account,
    ].filter((v) => v !== undefined);
    if (chosen.length !== 1) throw bankRefusals.oneReconcileChoiceRequired();
    if (req.fee !== undefined && !req.fee_account) throw bankRefusals.feeAccountRequired();
    if (req.fee !== undefined && (req.payment_id !== undefined || req.account !== undefined)) throw bankRefusals.feeWithoutPayment();
    const line = await findLine(db, ctx.orgId, req.line_id, { lock: true });
    const fee = req.fee !== undefined ? { amount: dec(req.fee).toFixed(), account: req.fee_account! } : undefined;
    let choice: ReconcileChoice;
    if (req.allocations) {
      const documents = await lockDocuments(
        db,
        ctx.orgId,
        req.allocations.map((a) => a.invoice_id),
      );
      const partners = new Set([...documents.values()].map((d) => d.partner_id));
      const partner = req.partner ?? [...partners][0];
      if (partner === undefined) throw bankRefusals.allocationsOfNoDocument();
      if (partners.size > 1) throw bankRefusals.allocationsOfSeveralPartners();
      choice = {
        kind: 'allocations',
        partner,
        allocations: req.allocations.map((a) => ({ invoice_id: a.invoice_id, amount: dec(a.amount).toFixed() })),
        fee,
      };
    } else if (req.partner !== undefined) choice = { kind: 'credit', partner: req.partner, fee };
    else if (req.payment_id !== undefined) choice = { kind: 'payment', payment_id: req.payment_id };
    else choice = { kind: 'account', account: req.account! };
    await reconcileLine(ctx, line, choice);
    const [record] = await lineRecords(db, [await findLine(db, ctx.orgId, line.id)]);
    return { message: `Bank line ${line.id} reconciled`, line: record! };
  },
});
