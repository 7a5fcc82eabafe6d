/**
 * The key a SKU is unique by: trimmed and case-folded, since "ab-1" and "AB-1 " on two products
 * would be read as the same article on a shelf label or an import. Blank means no SKU.
 */
export function skuKey(sku: string | null | undefined): string | null {
  const trimmed = sku?.trim() ?? '';
  return trimmed === '' ? null : trimmed.toLowerCase();
}

/** The SKU as stored and shown: trimmed, null when blank. */
export function cleanSku(sku: string | null | undefined): string | null {
  const trimmed = sku?.trim() ?? '';
  return trimmed === '' ? null : trimmed;
}
