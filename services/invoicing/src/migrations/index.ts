import type { Migration } from '@bo/runtime';
import { migration as m001Invoicing } from './001_invoicing';
import { migration as m002PartnerCreditLocks } from './002_partner_credit_locks';
import { migration as m003LineCatalogSnapshot } from './003_line_catalog_snapshot';
import { migration as m004PartnerDirectoryVersions } from './004_partner_directory_versions';
import { migration as m005OrganizationSettings } from './005_organization_settings';
import { migration as m006RecurringFirstPeriod } from './006_recurring_first_period';
import { migration as m007LineCatalogChecked } from './007_line_catalog_checked';
import { migration as m008InvoicesPartnerCommitted } from './008_invoices_partner_committed';
import { migration as m009ServerMadeLinksAndPartialCredits } from './009_server_made_links_and_partial_credits';
import { migration as m010IssuedSnapshotAndCurrency } from './010_issued_snapshot_and_currency';
import { migration as m011ExposureByReceivable } from './011_exposure_by_receivable';
import { migration as m012PartnerFenceCheck } from './012_partner_fence_check';
import { migration as m013DocumentTaxes } from './013_document_taxes';
import { migration as m014BooksExchangeRatesAndTaxLines } from './014_books_exchange_rates_and_tax_lines';
import { migration as m015PaymentsAndAllocations } from './015_payments_and_allocations';
import { migration as m016LockDateAndPaymentRates } from './016_lock_date_and_payment_rates';
import { migration as m017InvoiceVersions } from './017_invoice_versions';
import { migration as m018CashMinorUnits } from './018_cash_minor_units';
import { migration as m019IssuedAccountingCurrency } from './019_issued_accounting_currency';
import { migration as m020RefundRates } from './020_refund_rates';
import { migration as m021OrganizationSettingsHold } from './021_organization_settings_hold';
import { migration as m022RestoreConversionLinks } from './022_restore_conversion_links';
import { migration as m023LineStocked } from './023_line_stocked';
import { migration as m024IssuedFiles } from './024_issued_files';
import { migration as m025DocumentsWithoutCurrencyTakeTheAccountingCurrency } from './025_documents_without_currency_take_the_accounting_currency';
import { migration as m028AllocationEntries } from './028_allocation_entries';
import { migration as m029LedgerOpenItems } from './029_ledger_open_items';
import { migration as m030VatDailyTotals } from './030_vat_daily_totals';
import { migration as m040InvoicePaymentReference } from './040_invoice_payment_reference';
import { migration as m045BankStatements } from './045_bank_statements';
import { migration as m035InboundDocuments } from './035_inbound_documents';
import { migration as m046InvoicesOrgPartnerDate } from './046_invoices_org_partner_date';
import { migration as m047Dunning } from './047_dunning';
import { migration as m048PaymentFiles } from './048_payment_files';
import { migration as m049InboundSettings } from './049_inbound_settings';
import { migration as m050PartnerPostingsByDate } from './050_partner_postings_by_date';
import { migration as m052BankSettings } from './052_bank_settings';
import { migration as m055BooksVersion } from './055_books_version';
import { migration as m056LineStatedTax } from './056_line_stated_tax';
import { migration as m057InboundNotes } from './057_inbound_notes';
import { migration as m058InvoiceDunningDispute } from './058_invoice_dunning_dispute';
import { migration as m059DunningFees } from './059_dunning_fees';
import { migration as m060DunningFeeAccount } from './060_dunning_fee_account';
import { migration as m061PaymentsOrgPartnerDate } from './061_payments_org_partner_date';
import { migration as m063PartnerDirectoryIbans } from './063_partner_directory_ibans';

/**
 * The schema's migrations in the order they apply, one file each, named as schema_migrations records
 * them. A shipped migration is never edited and imports no domain code: a change of schema is a new
 * file at the end. Today's schema in one place is ../../schema.sql (a test compares it with a migrated
 * database).
 */
export const invoicingMigrations: Migration[] = [
  m001Invoicing,
  m002PartnerCreditLocks,
  m003LineCatalogSnapshot,
  m004PartnerDirectoryVersions,
  m005OrganizationSettings,
  m006RecurringFirstPeriod,
  m007LineCatalogChecked,
  m008InvoicesPartnerCommitted,
  m009ServerMadeLinksAndPartialCredits,
  m010IssuedSnapshotAndCurrency,
  m011ExposureByReceivable,
  m012PartnerFenceCheck,
  m013DocumentTaxes,
  m014BooksExchangeRatesAndTaxLines,
  m015PaymentsAndAllocations,
  m016LockDateAndPaymentRates,
  m017InvoiceVersions,
  m018CashMinorUnits,
  m019IssuedAccountingCurrency,
  m020RefundRates,
  m021OrganizationSettingsHold,
  m022RestoreConversionLinks,
  m023LineStocked,
  m024IssuedFiles,
  m025DocumentsWithoutCurrencyTakeTheAccountingCurrency,
  m028AllocationEntries,
  m029LedgerOpenItems,
  m030VatDailyTotals,
  m040InvoicePaymentReference,
  m045BankStatements,
  m035InboundDocuments,
  m046InvoicesOrgPartnerDate,
  m047Dunning,
  m048PaymentFiles,
  m049InboundSettings,
  m050PartnerPostingsByDate,
  m052BankSettings,
  m055BooksVersion,
  m056LineStatedTax,
  m057InboundNotes,
  m058InvoiceDunningDispute,
  m059DunningFees,
  m060DunningFeeAccount,
  m061PaymentsOrgPartnerDate,
  m063PartnerDirectoryIbans,
];
