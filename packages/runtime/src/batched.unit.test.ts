import { Batched } from './batched';

describe('batched work', () => {
  it('runs the first item at once and what waited meanwhile together, answering each in order', async () => {
    const calls: number[][] = [];
    const batched = new Batched<number, number>(async (items) => {
      calls.push(items);
      await new Promise((r) => setImmediate(r));
      return items.map((n) => n * 10);
    }, 3);
    const results = await Promise.all([1, 2, 3, 4, 5].map((n) => batched.run(n)));
    expect(results).toEqual([10, 20, 30, 40, 50]);
    expect(calls).toEqual([[1], [2, 3, 4], [5]]);
  });

  it('fails every item of a failed call, and the next call runs', async () => {
    let fail = true;
    const batched = new Batched<number, number>(async (items) => {
      if (fail) {
        fail = false;
        throw new Error('down');
      }
      return items;
    }, 10);
    await expect(batched.run(1)).rejects.toThrow('down');
    await expect(batched.run(2)).resolves.toBe(2);
  });
});
