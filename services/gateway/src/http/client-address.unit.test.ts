import { clientAddress, trustedProxies } from './client-address';

describe('the client of a request', () => {
  const none = trustedProxies('');
  const lb = trustedProxies('10.0.0.0/8, fd00::/8, 192.168.1.7');

  it('is the socket address when no proxy is trusted, whatever X-Forwarded-For says', () => {
    expect(clientAddress('10.0.0.5', '203.0.113.9', none)).toBe('10.0.0.5');
    expect(clientAddress('::ffff:10.0.0.5', undefined, none)).toBe('10.0.0.5');
  });

  it('is the last address a trusted proxy appended, read from the right, never what the client wrote', () => {
    expect(clientAddress('10.0.0.5', '203.0.113.9', lb)).toBe('203.0.113.9');
    // The client wrote 1.2.3.4 itself; the proxy appended the address it saw.
    expect(clientAddress('10.0.0.5', '1.2.3.4, 203.0.113.9', lb)).toBe('203.0.113.9');
    // Two trusted proxies in a row: the walk passes both.
    expect(clientAddress('::ffff:10.0.0.5', '1.2.3.4, 198.51.100.2, 192.168.1.7', lb)).toBe('198.51.100.2');
    expect(clientAddress('fd00::1', ['1.2.3.4', '2001:db8::7'], lb)).toBe('2001:db8::7');
    // A port some proxies add is dropped.
    expect(clientAddress('10.0.0.5', '[2001:db8::7]:443', lb)).toBe('2001:db8::7');
    expect(clientAddress('10.0.0.5', '198.51.100.2:5678', lb)).toBe('198.51.100.2');
  });

  it('ignores X-Forwarded-For from a socket that is not a trusted proxy', () => {
    expect(clientAddress('203.0.113.50', '10.0.0.1', lb)).toBe('203.0.113.50');
  });

  it('stops at the proxy when what it appended is no address, and when every hop is a proxy', () => {
    expect(clientAddress('10.0.0.5', 'unknown', lb)).toBe('10.0.0.5');
    expect(clientAddress('10.0.0.5', '10.0.0.9', lb)).toBe('10.0.0.9');
    expect(clientAddress('10.0.0.5', '', lb)).toBe('10.0.0.5');
  });

  it('refuses a TRUST_PROXY entry it cannot read, naming it', () => {
    expect(() => trustedProxies('10.0.0.0/33')).toThrow('"10.0.0.0/33" is not an IPv4 or IPv6 address or CIDR block');
    expect(() => trustedProxies('proxy.internal')).toThrow('"proxy.internal"');
    expect(() => trustedProxies('10.0.0.0/8/1')).toThrow('"10.0.0.0/8/1"');
    expect(trustedProxies(' , ').any).toBe(false);
  });
});
