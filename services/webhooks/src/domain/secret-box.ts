import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** One key of WEBHOOKS_SECRET_KEYS: its id, stored beside what it sealed, and its text. */
export interface SealingKey {
  id: string;
  text: string;
}

/**
 * Signing secrets are stored encrypted (AES-256-GCM): a delivery needs the plaintext to sign, so a
 * hash cannot do, and a copy of the database alone signs nothing. Each key has an id; the first key
 * seals, every key opens what it sealed, so a new key can come first while the older ones still open
 * what is stored until `npm run webhooks -- rekey` seals it all under the new one. A key is the
 * SHA-256 of its text, so any long random text serves.
 *
 * Stored as `v2:<key id>:<iv>:<tag>:<ciphertext>` (base64 each; the key id is authenticated with
 * it). `v1:<iv>:<tag>:<ciphertext>`, sealed before keys had ids, is opened by the key whose tag
 * matches, and rekey writes it again as v2.
 */
export class SecretBox {
  private readonly keys: Map<string, Buffer>;
  /** The id of the key that seals. */
  readonly sealingId: string;

  constructor(keys: readonly SealingKey[]) {
    const [first] = keys;
    if (!first) throw new Error('no sealing key');
    this.sealingId = first.id;
    this.keys = new Map(keys.map((k) => [k.id, createHash('sha256').update(k.text).digest()]));
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.sealingId) as Buffer, iv);
    cipher.setAAD(Buffer.from(this.sealingId));
    const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v2', this.sealingId, iv.toString('base64'), cipher.getAuthTag().toString('base64'), sealed.toString('base64')].join(':');
  }

  open(stored: string): string {
    const parts = stored.split(':');
    if (parts[0] === 'v2' && parts.length === 5) {
      const [, id, iv, tag, sealed] = parts as [string, string, string, string, string];
      const key = this.keys.get(id);
      if (!key) throw new Error(`sealed under key "${id}", which WEBHOOKS_SECRET_KEYS does not hold`);
      return decrypt(key, iv, tag, sealed, id);
    }
    if (parts[0] === 'v1' && parts.length === 4) {
      const [, iv, tag, sealed] = parts as [string, string, string, string];
      for (const key of this.keys.values()) {
        try {
          return decrypt(key, iv, tag, sealed);
        } catch {
          // Another key's tag: try the next.
        }
      }
      throw new Error('sealed before key ids, under no key WEBHOOKS_SECRET_KEYS holds');
    }
    throw new Error('not a sealed secret');
  }

  /** Whether `stored` is sealed by the key that seals now (else rekey seals it again). */
  isCurrent(stored: string): boolean {
    return stored.startsWith(`v2:${this.sealingId}:`);
  }
}

function decrypt(key: Buffer, iv: string, tag: string, sealed: string, aad?: string): string {
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
  if (aad !== undefined) decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64')), decipher.final()]).toString('utf8');
}
