import { createHash } from 'node:crypto';
import { partners, type organization } from '@bo/contracts';
import type { Knex, HandlerContext } from '@bo/runtime';
import { findPartner } from './read-model/partner-directory';

/**
 * The two parties of a document as the partners service holds them now: the organization profile
 * (with its logo) and the partner record (structured address, country, tax number). Rendering asks
 * for them rather than keeping copies: a render is a rare read of one row each, and the profile's
 * logo (up to 256 kB) is not in its event. `partner` is null when the partner is deleted or unknown.
 */
export interface DocumentParties {
  organization: organization.ProfileRecord;
  partner: partners.PartnerRecord | null;
}

type Ctx = Pick<HandlerContext, 'call'>;

/**
 * Both parties, and the partner's credit when `credit` is asked, in one call to the partners service
 * with no transaction open.
 */
export async function documentParties(
  ctx: Ctx,
  partnerId: number,
  opts: { credit?: boolean } = {},
): Promise<DocumentParties & { credit: partners.PartnerCredit | null }> {
  const answer = await ctx.call(
    partners.documentParties,
    { partner_id: partnerId, ...(opts.credit ? { include_credit: true } : {}) },
    { what: `the parties of a document of partner ${partnerId}` },
  );
  return { organization: answer.organization, partner: answer.partner, credit: answer.credit };
}

/**
 * What an issued document froze of its parties, as it is stored (a JSON column of the document):
 * the document model's party fields, with the logo's bytes replaced by their content address in the
 * service's `document_logos` table, so an unchanged logo is stored once however many documents
 * show it.
 */
export type StoredParties<T extends { logo_png?: Uint8Array | null }> = Omit<T, 'logo_png'> & { logo_sha256: string | null };

/** The table of frozen logos (org_id, sha256, png), the same in every service that freezes documents. */
export async function createDocumentLogos(trx: Knex.Transaction, schema: string): Promise<void> {
  await trx.schema.withSchema(schema).createTable('document_logos', (t) => {
    t.integer('org_id').notNullable();
    t.string('sha256', 64).notNullable();
    t.binary('png').notNullable();
    t.primary(['org_id', 'sha256']);
  });
}

/** What the document's row keeps of its parties (the logo named by its content), and the logo to store under that name, if any. */
export function partiesToStore<T extends { logo_png?: Uint8Array | null }>(
  parties: T,
): { kept: StoredParties<T>; logo: { sha256: string; png: Buffer } | null } {
  const { logo_png: logo, ...rest } = parties;
  if (!logo || logo.length === 0) return { kept: { ...rest, logo_sha256: null }, logo: null };
  const sha256 = createHash('sha256').update(logo).digest('hex');
  return { kept: { ...rest, logo_sha256: sha256 }, logo: { sha256, png: Buffer.from(logo) } };
}

/** Stores the parties' logo by its content (once per organization and content) and answers what to keep in the document's row. */
export async function storedParties<T extends { logo_png?: Uint8Array | null }>(
  trx: Knex.Transaction,
  orgId: number,
  parties: T,
): Promise<StoredParties<T>> {
  const { kept, logo } = partiesToStore(parties);
  if (logo) {
    await trx('document_logos').insert({ org_id: orgId, sha256: logo.sha256, png: logo.png }).onConflict(['org_id', 'sha256']).ignore();
  }
  return kept;
}

/** The frozen parties with their logo's bytes back; null when the document froze none. */
export async function frozenParties<T extends { logo_png?: Uint8Array | null }>(
  db: Knex,
  orgId: number,
  stored: StoredParties<T> | null,
): Promise<T | null> {
  if (!stored) return null;
  const { logo_sha256: sha256, ...rest } = stored;
  if (!sha256) return { ...rest, logo_png: null } as unknown as T;
  const row = await db('document_logos').select('png').where({ org_id: orgId, sha256 }).first<{ png: Buffer } | undefined>();
  if (!row) throw new Error(`the frozen logo ${sha256} of organization ${orgId} is missing from document_logos`);
  return { ...rest, logo_png: row.png } as unknown as T;
}

/**
 * Freezes the parties on a document row (`table` with the columns `issued_parties` and `currency`)
 * unless it already holds frozen ones, and answers what it holds afterwards: of two freezes racing,
 * the first to write wins and the other answers its parties. `also` are columns frozen with them
 * (the accounting currency), written only by the freeze that wins.
 */
export async function freezeParties<T extends { currency: string; logo_png?: Uint8Array | null }>(
  trx: Knex.Transaction,
  table: string,
  row: { org_id: number; id: number },
  parties: T,
  also: Record<string, unknown> = {},
): Promise<T> {
  const stored = await storedParties(trx, row.org_id, parties);
  const where = { org_id: row.org_id, id: row.id };
  const updated = await trx(table)
    .where(where)
    .whereNull('issued_parties')
    .update({ ...also, issued_parties: JSON.stringify(stored), currency: parties.currency || null });
  if (updated === 1) return parties;
  const kept = await trx(table).select('issued_parties').where(where).first<{ issued_parties: StoredParties<T> | null } | undefined>();
  const frozen = await frozenParties<T>(trx, row.org_id, kept?.issued_parties ?? null);
  if (!frozen) throw new Error(`${table} ${row.id} of organization ${row.org_id} holds no frozen parties after freezing them`);
  return frozen;
}

/**
 * The records a document's parties are made of now, with the read model's name for a partner the
 * partners service no longer has, and the partner's credit when `credit` is asked.
 */
export async function currentParties(
  ctx: Ctx & Pick<HandlerContext, 'db' | 'orgId'>,
  partnerId: number,
  opts: { credit?: boolean } = {},
): Promise<{ records: DocumentParties; partnerName: string | null; credit: partners.PartnerCredit | null }> {
  const { credit, ...records } = await documentParties(ctx, partnerId, opts);
  const partnerName = records.partner
    ? records.partner.partnername
    : ((await findPartner(ctx.db, ctx.orgId, partnerId))?.partnername ?? null);
  return { records, partnerName, credit };
}
