import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // Contracts made before the parent invoice billed the first period had their first child due on
  // start_date (index 0), so that period would be billed twice. Those that made no child yet move to
  // the period after the parent's; a paused one keeps its pause and resumes from there. PostgreSQL's
  // date arithmetic clamps month ends as the recurrence rule does (Jan 31 + 1 month is Feb 28), and
  // the rule as it stood is written here, so this migration never changes with today's code.
  name: '006_recurring_first_period',
  async up(trx, schema) {
    await trx.raw(
      `update ??.invoices
            set recurring_next_index = 1,
                recurring_next_run_date = (recurring_start_date + case recurring_frequency
                  when 'daily' then interval '1 day' when 'weekly' then interval '7 days'
                  when 'monthly' then interval '1 month' when 'quarterly' then interval '3 months'
                  when 'yearly' then interval '12 months' end)::date
          where recurring_enabled and recurring_status in ('active', 'paused') and recurring_generated = 0 and recurring_next_index = 0
            and recurring_frequency is not null and recurring_start_date is not null`,
      [schema],
    );
  },
};
