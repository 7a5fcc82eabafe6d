import { invoicing, partners as partnerContracts } from '@bo/contracts';
import { organizationToday } from '@bo/billing';
import { CallError, handler, recordEvent } from '@bo/runtime';
import { decideDunning } from './decide-dunning';
import { insertLetter, interestOf, letterRecord, loadLevels, loadSettings, overdueInvoices, planRecord } from './dunning.repository';

/**
 * A reminder run on `as_of`: load the overdue customer invoices, their last level and the
 * organization's levels, decide the letters (decideDunning), store each under its natural key
 * (organization, invoice, level). A letter another run holds already (a repeat, or a twin on another
 * replica) is not stored again and not sent again: only the run whose insert took it records
 * `invoicing.dunning.sent`. `dry_run` answers the letters and stores nothing.
 */
export const dunningRunHandler = handler(invoicing.dunningRun, {
  // Whether each partner with an overdue invoice is `dunning_blocked` is the partners service's to say.
  gather: async (req, ctx) => {
    const asOf = req.as_of ?? (await organizationToday(ctx.db, ctx.orgId));
    const overdue = await overdueInvoices(ctx.db, ctx.orgId, asOf);
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
    return { asOf, partners: blocked };
  },
  apply: async (req, ctx, { asOf, partners }) => {
    const db = ctx.db;
    // Invoices of partners the gather did not look up (overdue only since) wait for the next run.
    const invoices = await overdueInvoices(db, ctx.orgId, asOf, new Map(partners));
    const decision = decideDunning({
      asOf,
      levels: await loadLevels(db, ctx.orgId),
      interest: interestOf(await loadSettings(db, ctx.orgId)),
      invoices,
    });
    const dryRun = req.dry_run ?? false;
    const letters: invoicing.DunningLetterRecord[] = [];
    for (const plan of decision.letters) {
      if (dryRun) {
        letters.push(planRecord(plan, asOf));
        continue;
      }
      const row = await insertLetter(db, ctx.orgId, asOf, plan);
      if (!row) continue;
      const record = { ...letterRecord(row, plan.invoicenumber), id: row.id };
      await recordEvent(db, invoicing.dunningSent, ctx.orgId, record);
      letters.push(record);
    }
    return {
      message: `${letters.length} reminder letter(s) ${dryRun ? 'would be sent' : 'sent'} as of ${asOf}`,
      as_of: asOf,
      dry_run: dryRun,
      letters,
      skipped: decision.skipped,
    };
  },
});
