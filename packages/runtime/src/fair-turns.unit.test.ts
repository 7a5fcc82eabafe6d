import { FairTurns } from './fair-turns';

/** Work that ends when the test says: its org, and a way to end it. */
function gate() {
  const order: string[] = [];
  const open = new Map<string, () => void>();
  const work = (name: string) => () =>
    new Promise<string>((resolve) => {
      order.push(name);
      open.set(name, () => resolve(name));
    });
  const end = async (name: string) => {
    open.get(name)?.();
    open.delete(name);
    // Let the turn pass to the next request.
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { order, work, end, running: () => [...open.keys()] };
}

const never = () => 'expired';

describe('fair turns between organizations', () => {
  it('runs at most its capacity at once, and the next waiting one as each ends', async () => {
    const turns = new FairTurns(2);
    const g = gate();
    const done = ['a1', 'a2', 'a3'].map((n) => turns.run(1, 1, undefined, g.work(n), never));
    expect(g.running()).toEqual(['a1', 'a2']);
    expect(turns.waiting()).toBe(1);
    await g.end('a1');
    expect(g.running()).toEqual(['a2', 'a3']);
    await g.end('a2');
    await g.end('a3');
    expect(await Promise.all(done)).toEqual(['a1', 'a2', 'a3']);
  });

  it("serves an organization arriving at a busy service next, ahead of another's backlog", async () => {
    const turns = new FairTurns(1);
    const g = gate();
    const all = [...Array.from({ length: 5 }, (_, i) => turns.run(1, 10, undefined, g.work(`pdf${i}`), never))];
    all.push(turns.run(2, 1, undefined, g.work('list'), never));
    for (const name of ['pdf0', 'list', 'pdf1', 'pdf2', 'pdf3', 'pdf4']) await g.end(name);
    await Promise.all(all);
    expect(g.order).toEqual(['pdf0', 'list', 'pdf1', 'pdf2', 'pdf3', 'pdf4']);
  });

  it('gives two backlogged organizations turns in inverse proportion to their cost', async () => {
    const turns = new FairTurns(1);
    const g = gate();
    const all: Array<Promise<string>> = [];
    for (let i = 0; i < 3; i++) all.push(turns.run(1, 10, undefined, g.work(`report${i}`), never));
    for (let i = 0; i < 25; i++) all.push(turns.run(2, 1, undefined, g.work(`list${i}`), never));
    while (g.running().length > 0) await g.end(g.running()[0] as string);
    await Promise.all(all);
    // After the first report, ten lists for every report.
    const reports = g.order.map((n, i) => (n.startsWith('report') ? i : -1)).filter((i) => i >= 0);
    expect(reports).toEqual([0, 11, 22]);
  });

  it('does not run a request whose deadline passed while it waited', async () => {
    const turns = new FairTurns(1);
    const g = gate();
    const first = turns.run(1, 1, undefined, g.work('first'), never);
    const late = turns.run(2, 1, Date.now() - 1, g.work('late'), never);
    const next = turns.run(3, 1, Date.now() + 60_000, g.work('next'), never);
    await g.end('first');
    expect(await late).toBe('expired');
    await g.end('next');
    expect([await first, await next]).toEqual(['first', 'next']);
    expect(g.order).toEqual(['first', 'next']);
  });
});
