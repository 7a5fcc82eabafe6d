import { storedRecordMigration, type Migration } from '@bo/runtime';
import { partnerRecordFields } from '../partner/partner.record';
import { migration as m001Partners } from './001_partners';
import { migration as m002StructuredAddressVersionAndOrganization } from './002_structured_address_version_and_organization';
import { migration as m003ExposureByReceivable } from './003_exposure_by_receivable';
import { migration as m004OrganizationRounding } from './004_organization_rounding';
import { migration as m005OrganizationLockDate } from './005_organization_lock_date';
import { migration as m006LedgerMinorUnits } from './006_ledger_minor_units';
import { migration as m007CreditLimitMinorUnits } from './007_credit_limit_minor_units';
import { migration as m008LedgerPerCurrency } from './008_ledger_per_currency';
import { migration as m009LedgerJournalMoves } from './009_ledger_journal_moves';
import { migration as m010PeppolIds } from './010_peppol_ids';
import { migration as m011PartnerBankAccountsAndDunningBlock } from './011_partner_bank_accounts_and_dunning_block';
import { migration as m012PartnerFiguresWeighed } from './012_partner_figures_weighed';
import { migration as m013ProfileBooksVersion } from './013_profile_books_version';
import { migration as m014InboxAsPlannedCheck } from './014_inbox_as_planned_check';

/**
 * The schema's migrations in the order they apply, one file each, named as schema_migrations records
 * them. A shipped migration is never edited and imports no domain code: a change of schema is a new
 * file at the end. Today's schema in one place is ../../schema.sql (a test compares it with a migrated
 * database).
 */
export const partnersMigrations: Migration[] = [
  m001Partners,
  m002StructuredAddressVersionAndOrganization,
  m003ExposureByReceivable,
  m004OrganizationRounding,
  m005OrganizationLockDate,
  m006LedgerMinorUnits,
  m007CreditLimitMinorUnits,
  m008LedgerPerCurrency,
  m009LedgerJournalMoves,
  m010PeppolIds,
  m011PartnerBankAccountsAndDunningBlock,
  m012PartnerFiguresWeighed,
  m013ProfileBooksVersion,
  m014InboxAsPlannedCheck,
  // Each partner's record as a list answers it, kept by PostgreSQL (repeatable: renamed, and so
  // rebuilt, whenever the record's fields change). Keep it last.
  storedRecordMigration('partners', partnerRecordFields),
];
