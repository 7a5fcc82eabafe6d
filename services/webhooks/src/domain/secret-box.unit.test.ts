import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { SecretBox } from './secret-box';

const k1 = { id: 'k1', text: 'a key of at least thirty-two characters' };
const k2 = { id: 'k2', text: 'another key of at least thirty-two chars' };

/** A secret as stored before keys had ids: `v1:<iv>:<tag>:<ciphertext>` under the SHA-256 of the key's text. */
function sealedV1(text: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', createHash('sha256').update(text).digest(), iv);
  const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), sealed.toString('base64')].join(':');
}

describe('secret box', () => {
  it('opens what it sealed, and nothing sealed under another key', () => {
    const box = new SecretBox([k1]);
    const sealed = box.seal('whsec_abc');
    expect(sealed).toMatch(/^v2:k1:/);
    expect(sealed).not.toContain('whsec_abc');
    expect(box.open(sealed)).toBe('whsec_abc');
    expect(box.seal('whsec_abc')).not.toBe(sealed);
    expect(() => new SecretBox([{ ...k2, id: 'k1' }]).open(sealed)).toThrow();
  });

  it('seals under the first key and opens under every key it holds, naming a key it lacks', () => {
    const old = new SecretBox([k1]).seal('whsec_old');
    const box = new SecretBox([k2, k1]);
    expect(box.open(old)).toBe('whsec_old');
    expect(box.isCurrent(old)).toBe(false);
    const fresh = box.seal('whsec_new');
    expect(fresh).toMatch(/^v2:k2:/);
    expect(box.isCurrent(fresh)).toBe(true);
    expect(() => new SecretBox([k1]).open(fresh)).toThrow('sealed under key "k2", which WEBHOOKS_SECRET_KEYS does not hold');
  });

  it('authenticates the key id: a sealed value relabelled with another id does not open', () => {
    const box = new SecretBox([k1, { id: 'k9', text: k1.text }]);
    const relabelled = box.seal('whsec_abc').replace('v2:k1:', 'v2:k9:');
    expect(() => box.open(relabelled)).toThrow();
  });

  it('opens a secret sealed before key ids with whichever key sealed it', () => {
    const box = new SecretBox([k2, k1]);
    expect(box.open(sealedV1(k1.text, 'whsec_v1'))).toBe('whsec_v1');
    expect(box.isCurrent(sealedV1(k2.text, 'whsec_v1'))).toBe(false);
    expect(() => new SecretBox([k2]).open(sealedV1(k1.text, 'whsec_v1'))).toThrow('under no key');
  });
});
