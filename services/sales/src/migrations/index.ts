import type { Migration } from '@bo/runtime';
import { migration as m001Quotations } from './001_quotations';
import { migration as m002ConversionAttempted } from './002_conversion_attempted';
import { migration as m003ConversionInSteps } from './003_conversion_in_steps';
import { migration as m004LineCatalogSnapshot } from './004_line_catalog_snapshot';
import { migration as m005PartnerDirectoryVersions } from './005_partner_directory_versions';
import { migration as m006OrganizationSettings } from './006_organization_settings';
import { migration as m006QuotationCurrencyAndSnapshot } from './006_quotation_currency_and_snapshot';
import { migration as m007ExposureByReceivable } from './007_exposure_by_receivable';
import { migration as m008PartnerFenceCheck } from './008_partner_fence_check';
import { migration as m009DocumentTaxes } from './009_document_taxes';
import { migration as m010IssuedAccountingCurrency } from './010_issued_accounting_currency';
import { migration as m011PartnerDirectoryIbans } from './011_partner_directory_ibans';

/**
 * The schema's migrations in the order they apply, one file each, named as schema_migrations records
 * them. A shipped migration is never edited and imports no domain code: a change of schema is a new
 * file at the end. Today's schema in one place is ../../schema.sql (a test compares it with a migrated
 * database).
 */
export const salesMigrations: Migration[] = [
  m001Quotations,
  m002ConversionAttempted,
  m003ConversionInSteps,
  m004LineCatalogSnapshot,
  m005PartnerDirectoryVersions,
  m006OrganizationSettings,
  m006QuotationCurrencyAndSnapshot,
  m007ExposureByReceivable,
  m008PartnerFenceCheck,
  m009DocumentTaxes,
  m010IssuedAccountingCurrency,
  m011PartnerDirectoryIbans,
];
