import type { Knex } from '@bo/runtime';

/** A rendered file as the render operation answers it. */
export interface IssuedFile {
  filename: string;
  content_type: 'application/pdf' | 'application/xml';
  content: Buffer;
}

type Key = { org_id: number; id: number };

/** The file an issued invoice was first rendered to in `format`; null before its first render. */
export async function issuedFile(db: Knex, invoice: Key, format: string): Promise<IssuedFile | null> {
  const row = await db('issued_files')
    .select('filename', 'content_type', 'content')
    .where({ org_id: invoice.org_id, invoice_id: invoice.id, format })
    .first<IssuedFile | undefined>();
  return row ?? null;
}

/**
 * Keeps an issued invoice's first render in `format` and answers the file kept: the first of racing
 * renders to commit wins (the key is the invoice and the format), so every fetch answers the same
 * bytes, whatever changes afterwards (payments, the kernel's or a renderer's code).
 */
export async function keepIssuedFile(db: Knex, invoice: Key, format: string, file: IssuedFile): Promise<IssuedFile> {
  await db('issued_files')
    .insert({ org_id: invoice.org_id, invoice_id: invoice.id, format, ...file })
    .onConflict(['org_id', 'invoice_id', 'format'])
    .ignore();
  const kept = await issuedFile(db, invoice, format);
  if (!kept) throw new Error(`issued file ${format} of invoice ${invoice.id} was not kept`);
  return kept;
}
