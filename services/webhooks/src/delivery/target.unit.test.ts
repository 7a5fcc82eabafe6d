import { resolveTarget, type Resolver } from './target';

const strict = { WEBHOOKS_ALLOW_HTTP: false, WEBHOOKS_ALLOW_PRIVATE: false };
const to =
  (...addresses: string[]): Resolver =>
  () =>
    Promise.resolve(addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));

describe('webhook targets', () => {
  it('connect to the address the check resolved, a public one', async () => {
    expect(await resolveTarget(new URL('https://hooks.example.com/x'), strict, to('93.184.215.14'))).toEqual({
      ok: true,
      address: '93.184.215.14',
      family: 4,
    });
  });

  it('refuse a name with any private address among its answers (a rebinding name gets no second lookup)', async () => {
    const target = await resolveTarget(new URL('https://rebind.example.com/x'), strict, to('93.184.215.14', '10.0.0.7'));
    expect(target).toMatchObject({ ok: false, problem: expect.stringContaining('10.0.0.7') });
    expect(await resolveTarget(new URL('https://meta.example.com/x'), strict, to('169.254.169.254'))).toMatchObject({ ok: false });
  });

  it('refuse http unless allowed, and private addresses unless allowed', async () => {
    expect(await resolveTarget(new URL('http://hooks.example.com/x'), strict, to('93.184.215.14'))).toMatchObject({ ok: false });
    const dev = { WEBHOOKS_ALLOW_HTTP: true, WEBHOOKS_ALLOW_PRIVATE: true };
    expect(await resolveTarget(new URL('http://127.0.0.1:8080/x'), dev)).toEqual({ ok: true, address: '127.0.0.1', family: 4 });
    expect(await resolveTarget(new URL('https://[::1]/x'), strict)).toMatchObject({ ok: false });
  });

  it('say when a name does not resolve', async () => {
    const target = await resolveTarget(new URL('https://nowhere.invalid/x'), strict, () => Promise.reject(new Error('ENOTFOUND')));
    expect(target).toMatchObject({ ok: false, unresolved: true });
  });
});
