import { connect, createServer, type Server, type Socket } from 'node:net';
import * as testing from '@bo/testkit';

/** The chaos suite's proxy: forwards bytes, and cuts, refuses or stalls connections when told. */
describe('TcpProxy', () => {
  let echo: Server;
  let echoPort: number;
  let proxy: testing.TcpProxy;

  beforeEach(async () => {
    echo = createServer((s) => {
      s.on('error', () => undefined);
      s.pipe(s);
    });
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', () => r()));
    echoPort = (echo.address() as { port: number }).port;
    proxy = await new testing.TcpProxy({ targetHost: '127.0.0.1', targetPort: echoPort }).start();
  });
  afterEach(async () => {
    await proxy.close();
    await new Promise<void>((r) => echo.close(() => r()));
  });

  const open = () =>
    new Promise<Socket>((resolve, reject) => {
      const s = connect({ host: '127.0.0.1', port: proxy.port });
      s.once('connect', () => resolve(s));
      s.once('error', reject);
    });
  const roundTrip = (s: Socket, text: string, timeoutMs = 2000) =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no answer')), timeoutMs);
      s.once('data', (d) => {
        clearTimeout(timer);
        resolve(d.toString());
      });
      s.write(text);
    });
  const closed = (s: Socket) => new Promise<void>((r) => (s.destroyed ? r() : s.once('close', () => r())));

  it('forwards both ways', async () => {
    const s = await open();
    expect(await roundTrip(s, 'hello')).toBe('hello');
    expect(proxy.stats().open).toBe(1);
    s.destroy();
  });

  it('cuts every established connection and still accepts new ones', async () => {
    const a = await open();
    const b = await open();
    a.on('error', () => undefined);
    b.on('error', () => undefined);
    await roundTrip(a, 'x');
    await roundTrip(b, 'y');
    expect(proxy.cut()).toBe(2);
    await Promise.all([closed(a), closed(b)]);
    const c = await open();
    expect(await roundTrip(c, 'again')).toBe('again');
    c.destroy();
  });

  it('refuses new connections for a while', async () => {
    proxy.refuse(300);
    // The reset may come before or after the client saw the connection open.
    const s = await open().catch(() => undefined);
    if (s) {
      s.on('error', () => undefined);
      await closed(s);
    }
    expect(proxy.stats().refused).toBe(1);
    await new Promise((r) => setTimeout(r, 350));
    const t = await open();
    expect(await roundTrip(t, 'back')).toBe('back');
    t.destroy();
  });

  it('forwards new connections again once told to stop refusing', async () => {
    proxy.refuse(60_000);
    await open()
      .then((s) => closed(s.on('error', () => undefined)))
      .catch(() => undefined);
    expect(proxy.stats().refused).toBe(1);
    proxy.stopRefusing();
    const t = await open();
    expect(await roundTrip(t, 'back')).toBe('back');
    t.destroy();
  });

  it('stalls traffic in a blackhole, then lets it flow or cuts it', async () => {
    const s = await open();
    s.on('error', () => undefined);
    // The answer must not come while the blackhole holds: it is checked against the blackhole's own
    // end, not against a shorter timer a busy machine could fire late.
    let healed = false;
    const stalled = proxy.blackhole(300, false).then(() => void (healed = true));
    const answer = roundTrip(s, 'held', 5000).then((text) => ({ text, afterHealing: healed }));
    await stalled;
    expect(await answer).toEqual({ text: 'held', afterHealing: true });
    await proxy.blackhole(100, true);
    await closed(s);
  });
});
