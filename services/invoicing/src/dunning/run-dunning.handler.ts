import { invoicing, partners as partnerContracts } from '@bo/contracts';
import { parseDateTime } from '@bo/kernel';
import { assertNotFenced, readSettings } from '@bo/billing';
import { AppError, CallError, handler, recordEvent, statementEvent, type ApplyContext, type HandlerContext } from '@bo/runtime';
import { insertInvoice } from '../invoice/invoice.writer';
import { postInvoice, validationFacts, type ValidationFacts } from '../invoice/validate-invoice.handler';
import { decideDunning, type DunningDecision, type DunningLetterPlan, type OverdueInvoice } from './decide-dunning';
import { lettersToStore, readWithPartners, runReply, storedRecords } from './decide-run';
import {
  feesOf,
  insertLetter,
  interestOf,
  letterRecord,
  lettersAlone,
  loadDunningRun,
  planRecord,
  readDunningRun,
  setFeeInvoice,
  type DunningSetup,
} from './dunning.repository';
import { feeInvoice, type FeeInvoicePlan } from './fee-invoice';

/**
 * A reminder run on `as_of`: load the overdue customer invoices, their last level and the
 * organization's levels, decide the letters (decideDunning), store each under its natural key
 * (organization, invoice, level). A letter another run holds already (a repeat, or a twin on another
 * replica) is not stored again and not sent again: only the run whose insert took it records
 * `invoicing.dunning.sent` and, with `post_fees`, makes and posts its fee invoice. `dry_run` answers
 * the letters and stores nothing.
 *
 * Load → decide → store, optimistic as a rule (`alone`): the invoices, setup and letter ids read
 * with no lock by the gather (readDunningRun, one statement) before it asks the partners service,
 * the partners' answers applied to that read (readWithPartners), and the letters with their events
 * stored as one statement (lettersAlone), only while the levels and settings and each letter's
 * invoice are the rows read and every letter's key was free; the reply and the events are the letters that statement
 * stored, all of them. A dry run answers on the read, its statement checking the setup only. A run
 * that posts fee invoices (lettersToStore: a letter carrying one) goes the locked way (`apply`): the
 * invoice writer makes each and validate's code posts it, too composite for one statement. So does a
 * run whose read went stale, or whose letter another run took meanwhile: `apply` stores what is left
 * to send letter by letter, each under its natural key.
 */
export const dunningRunHandler = handler(invoicing.dunningRun, {
  // Whether each partner with an overdue invoice is `dunning_blocked` is the partners service's to
  // say; with `post_fees`, what validating a fee invoice asks of it too, per partner with a fee due.
  gather: async (req, ctx) => {
    const asOf = req.as_of ?? (await readSettings(ctx.db, ctx.orgId)).today();
    // Read with no lock, with what a store decided on it checks (`alone` decides on this read).
    const read = await readDunningRun(ctx.db, ctx.orgId, asOf, { draw: !req.dry_run });
    const { invoices: overdue, setup } = read;
    const blocked: Array<[number, { blocked: boolean }]> = [];
    for (const id of [...new Set(overdue.map((i) => i.partner_id))]) {
      try {
        const { partner } = await ctx.call(partnerContracts.getPartner, { partner_id: id }, { what: 'the partner' });
        blocked.push([id, { blocked: partner.dunning_blocked }]);
      } catch (err) {
        // A partner deleted since: nothing blocks its reminders.
        if (err instanceof CallError && err.failure === 'refused' && err.code === 'not_found') blocked.push([id, { blocked: false }]);
        else throw err;
      }
    }
    const fees: Array<[number, ValidationFacts]> = [];
    if (setup.settings.post_fees && !req.dry_run) {
      const decision = decideDunning({
        asOf,
        levels: setup.levels,
        interest: null,
        invoices: overdue.map((i) => ({ ...i, partner_blocked: blocked.some(([id, p]) => id === i.partner_id && p.blocked) })),
        fees: feesOf(setup.settings),
      });
      for (const id of [...new Set(decision.letters.filter((l) => l.fee_invoice).map((l) => l.partner_id))]) {
        fees.push([id, await feeValidationFacts(ctx, id, asOf)]);
      }
    }
    return { asOf, partners: blocked, fees, read };
  },
  // It asks the partners service and reads: the store holds the operation key, no claim of its own is
  // written before.
  readOnlyGather: true,
  alone: (req, ctx, { asOf, partners, fees, read: gathered }) => {
    // Fee invoices to post (the gather asked what validating them needs): the locked way.
    if (fees.length) return undefined;
    const dryRun = req.dry_run ?? false;
    const read = readWithPartners(gathered, new Map(partners));
    const decision = decideRun(asOf, read);
    // A letter carrying a fee invoice (decideDunning with post_fees, a fee due) sends the run the
    // locked way (lettersToStore): the invoice writer makes it and validate's code posts it, in the
    // transaction, too composite for one statement.
    const letters = dryRun ? [] : lettersToStore(decision, read.drawn, read.reads);
    if (!letters) return undefined;
    const stored = storedRecords(letters, asOf);
    return {
      ...lettersAlone(ctx.orgId, asOf, letters, read.setupRead),
      events: stored.map((record) => statementEvent(invoicing.dunningSent, ctx.orgId, record)),
      reply: runReply(asOf, dryRun, dryRun ? decision.letters.map((plan) => planRecord(plan, asOf)) : stored, decision.skipped),
    };
  },
  apply: async (req, ctx, { asOf, partners, fees }) => {
    const db = ctx.db;
    // Load → decide (decideDunning) → store, the locked way: a run posting fee invoices, or one whose
    // read went stale or whose letter another run took meanwhile (`alone` stored nothing). Invoices of
    // partners the gather did not look up (overdue only since) wait for the next run. The store stays
    // in the transaction: each letter is stored under its natural key, and a fee invoice is made and
    // posted by the invoice writer and the validate operation's code (a batch too composite for one
    // statement).
    const decision = decideRun(asOf, await loadDunningRun(db, ctx.orgId, asOf, new Map(partners)));
    const dryRun = req.dry_run ?? false;
    const feeFacts = new Map(fees);
    const letters: invoicing.DunningLetterRecord[] = [];
    for (const plan of decision.letters) {
      if (dryRun) {
        letters.push(planRecord(plan, asOf));
        continue;
      }
      const row = await insertLetter(db, ctx.orgId, asOf, plan);
      if (!row) continue;
      const feeInvoiceId = plan.fee_invoice ? await postFee(ctx, plan, plan.fee_invoice, row.id, feeFacts) : null;
      const record = { ...letterRecord({ ...row, fee_invoice_id: feeInvoiceId }, plan.invoicenumber), id: row.id };
      await recordEvent(db, invoicing.dunningSent, ctx.orgId, record);
      letters.push(record);
    }
    return runReply(asOf, dryRun, letters, decision.skipped);
  },
});

/** The letters of a run on the invoices and setup loaded or read, with the setup's interest and fee posting. */
function decideRun(asOf: string, { invoices, setup }: { invoices: OverdueInvoice[]; setup: DunningSetup }): DunningDecision {
  return decideDunning({ asOf, levels: setup.levels, interest: interestOf(setup.settings), invoices, fees: feesOf(setup.settings) });
}

/**
 * What validating a partner's fee invoice asks elsewhere (validationFacts, as the validate operation
 * asks it), dated `asOf`. A fee follows from a debt already owed, not a new sale: the partner's
 * credit limit is not checked against it.
 */
function feeValidationFacts(ctx: HandlerContext, partnerId: number, asOf: string): Promise<ValidationFacts> {
  const draft = {
    invoicetype: 'invoiceout' as const,
    partner_id: partnerId,
    invoicedatetime: parseDateTime(`${asOf}T00:00:00`),
    credits_invoice_id: null,
    restock: true,
  };
  return validationFacts(ctx, draft, { productIds: [] }, true);
}

/**
 * Makes the letter's fee invoice by the invoice creation's own writer and posts it by the validate
 * operation's own code, in the run's transaction (a refusal of either refuses the run), and keeps
 * its id on the letter. A letter whose partner the gather asked nothing for (post_fees turned on,
 * or the invoice fell overdue, since) has the run gathered again.
 */
async function postFee(
  ctx: ApplyContext,
  letter: DunningLetterPlan,
  plan: FeeInvoicePlan,
  letterId: number,
  facts: ReadonlyMap<number, ValidationFacts>,
): Promise<number> {
  const partnerFacts = facts.get(plan.partner_id);
  if (!partnerFacts) throw new AppError(503, 'service_unavailable', 'The reminder settings changed meanwhile; retry').asStale();
  const { values, lines } = feeInvoice(plan, letterId);
  await assertNotFenced(ctx.db, ctx.orgId, plan.partner_id);
  const made = await insertInvoice(ctx.db, ctx.orgId, values, lines);
  // Dated the run's as_of: a lock date on or after it refuses the run naming as_of.
  await postInvoice(ctx, made.row.id, partnerFacts, `the fee invoice of ${letter.invoicenumber}, level ${letter.level}`, {
    dateField: 'as_of',
  });
  await setFeeInvoice(ctx.db, ctx.orgId, letterId, made.row.id);
  return made.row.id;
}
