import { asPlannedCheckMigration } from '@bo/runtime';

// The check a consumer's planned store is held to (the partners ledger: load → decide → store, no
// transaction): its counts as planned, else a serialization failure and the batch decided again.
export const migration = asPlannedCheckMigration('014_inbox_as_planned_check');
