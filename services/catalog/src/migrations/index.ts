import type { Migration } from '@bo/runtime';
import { migration as m001Catalog } from './001_catalog';
import { migration as m002StockLedgerAppendOnly } from './002_stock_ledger_append_only';
import { migration as m003DocumentMoves } from './003_document_moves';
import { migration as m004StockMovesNaturalKey } from './004_stock_moves_natural_key';
import { migration as m005TaxDefaults } from './005_tax_defaults';
import { migration as m006ProductVersion } from './006_product_version';
import { migration as m007InboxAsPlannedCheck } from './007_inbox_as_planned_check';
import { migration as m008ProductStockVersion } from './008_product_stock_version';
import { migration as m009ProductVariantsVersion } from './009_product_variants_version';

/**
 * The schema's migrations in the order they apply, one file each, named as schema_migrations records
 * them. A shipped migration is never edited and imports no domain code: a change of schema is a new
 * file at the end. Today's schema in one place is ../../schema.sql (a test compares it with a migrated
 * database).
 */
export const catalogMigrations: Migration[] = [
  m001Catalog,
  m002StockLedgerAppendOnly,
  m003DocumentMoves,
  m004StockMovesNaturalKey,
  m005TaxDefaults,
  m006ProductVersion,
  m007InboxAsPlannedCheck,
  m008ProductStockVersion,
  m009ProductVariantsVersion,
];
