import { invoicing } from '@bo/contracts';
import { handler, unlessRefused } from '@bo/runtime';
import { changesSetup, decideDunningLevels } from './decide-levels';
import { levelsAlone, lockDunningSettings, readDunningSetup, saveLevels } from './dunning.repository';

/**
 * Sets the organization's reminder levels, statutory interest rate and fee posting (any of `levels`,
 * `reference_rate`, `points`, `post_fees`, `fee_tax`, `fee_account` given replaces that part), or lists them.
 *
 * Load → decide (decideDunningLevels) → store, optimistic as a rule: the setup read with no lock (one
 * statement), and what it becomes stored as one statement, only while the settings row is the one
 * read (every change of the setup writes it), answering the setup as decided (`alone`); a listing
 * answers it only while it is still so. A set meanwhile, or a refusal, goes the usual way (`apply`):
 * sets of one organization take turns on the settings row, each deciding on what the one before it
 * stored.
 */
export const dunningLevelsHandler = handler(invoicing.dunningLevels, {
  alone: async (req, ctx) => {
    const { setup, read } = await readDunningSetup(ctx.db, ctx.orgId);
    const decision = unlessRefused(() => decideDunningLevels(setup, req));
    if (!decision) return undefined;
    return { ...levelsAlone(ctx.orgId, decision.store, read), events: [], reply: decision.reply };
  },
  apply: async (req, ctx) => {
    // Sets of one organization take turns, each reading what the one before it stored.
    if (changesSetup(req)) await lockDunningSettings(ctx.db, ctx.orgId);
    const decision = decideDunningLevels((await readDunningSetup(ctx.db, ctx.orgId)).setup, req);
    if (decision.store) await saveLevels(ctx.db, ctx.orgId, decision.store.levels, decision.store.settings);
    return decision.reply;
  },
});
