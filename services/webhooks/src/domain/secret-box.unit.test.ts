import { SecretBox } from './secret-box';

describe('secret box', () => {
  it('opens what it sealed, and nothing sealed under another key', () => {
    const box = new SecretBox('a key of at least thirty-two characters');
    const sealed = box.seal('whsec_abc');
    expect(sealed).not.toContain('whsec_abc');
    expect(box.open(sealed)).toBe('whsec_abc');
    expect(box.seal('whsec_abc')).not.toBe(sealed);
    expect(() => new SecretBox('another key of at least thirty-two chars').open(sealed)).toThrow();
  });
});
