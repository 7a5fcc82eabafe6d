import { LookupFailure, resolveTarget, type Resolver } from './target';

const strict = { WEBHOOKS_ALLOW_HTTP: false, WEBHOOKS_ALLOW_PRIVATE: false };
const dev = { WEBHOOKS_ALLOW_HTTP: true, WEBHOOKS_ALLOW_PRIVATE: true };
const to =
  (...addresses: string[]): Resolver =>
  () =>
    Promise.resolve(addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
const unused: Resolver = () => Promise.reject(new Error('no lookup expected'));

describe('webhook targets', () => {
  it('connect to the address the check resolved, a public one', async () => {
    expect(await resolveTarget(new URL('https://hooks.example.com/x'), strict, to('93.184.215.14'))).toEqual({
      ok: true,
      address: '93.184.215.14',
      family: 4,
    });
  });

  it('refuse a name with any private address among its answers, never saying which address it was', async () => {
    const target = await resolveTarget(new URL('https://rebind.example.com/x'), strict, to('93.184.215.14', '10.0.0.7'));
    expect(target).toEqual({ ok: false, problem: 'resolves to a loopback, private, link-local or reserved address' });
    const meta = await resolveTarget(new URL('https://meta.example.com/x'), strict, to('169.254.169.254'));
    expect(JSON.stringify(meta)).not.toContain('169.254');
  });

  it('refuse http unless allowed, and private addresses unless allowed', async () => {
    expect(await resolveTarget(new URL('http://hooks.example.com/x'), strict, to('93.184.215.14'))).toMatchObject({ ok: false });
    expect(await resolveTarget(new URL('http://127.0.0.1:8080/x'), dev, unused)).toEqual({ ok: true, address: '127.0.0.1', family: 4 });
    expect(await resolveTarget(new URL('https://[::1]/x'), strict, unused)).toEqual({
      ok: false,
      problem: 'is a loopback, private, link-local or reserved address',
    });
  });

  it('take localhost and its subdomains for this host, without asking DNS', async () => {
    for (const host of ['localhost', 'LOCALHOST.', 'api.localhost'])
      expect(await resolveTarget(new URL(`https://${host}/x`), strict, unused)).toMatchObject({
        ok: false,
        problem: expect.stringContaining('loopback'),
      });
    expect(await resolveTarget(new URL('http://localhost:8080/x'), dev, unused)).toEqual({ ok: true, address: '127.0.0.1', family: 4 });
  });

  it('say whether a name does not exist or its nameservers did not answer', async () => {
    const absent = await resolveTarget(new URL('https://nowhere.invalid/x'), strict, () =>
      Promise.reject(new LookupFailure('absent', 'no such name')),
    );
    expect(absent).toEqual({ ok: false, problem: 'host nowhere.invalid does not resolve: no such name', lookup: 'absent' });
    const silent = await resolveTarget(new URL('https://slow.example.com/x'), strict, () =>
      Promise.reject(new LookupFailure('unanswered', 'no answer from DNS within 50 ms')),
    );
    expect(silent).toMatchObject({ ok: false, lookup: 'unanswered' });
  });
});
