import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Signing secrets are stored encrypted (AES-256-GCM) under a key from WEBHOOKS_SECRET_KEY: a
 * delivery needs the plaintext to sign, so a hash cannot do, and a copy of the database alone
 * signs nothing. The key is the SHA-256 of the setting's text, so any long random text serves.
 * Stored as `v1:<iv>:<tag>:<ciphertext>`, base64 each.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(keyText: string) {
    this.key = createHash('sha256').update(keyText).digest();
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), sealed.toString('base64')].join(':');
  }

  open(stored: string): string {
    const [version, iv, tag, sealed] = stored.split(':');
    if (version !== 'v1' || !iv || !tag || sealed === undefined) throw new Error('not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64')), decipher.final()]).toString('utf8');
  }
}
