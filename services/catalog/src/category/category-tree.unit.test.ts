import { wouldCreateCycle } from './category-tree';

// 1 <- 2 <- 3 (3's parent is 2, 2's parent is 1), 4 alone
const tree = new Map<number, number | null>([
  [1, null],
  [2, 1],
  [3, 2],
  [4, null],
]);
const parentOf = (id: number) => tree.get(id) ?? null;

describe('category cycles', () => {
  it('refuses a category as its own parent', () => {
    expect(wouldCreateCycle(4, 4, parentOf)).toBe(true);
  });

  it('refuses moving a category under its descendant', () => {
    expect(wouldCreateCycle(1, 3, parentOf)).toBe(true);
    expect(wouldCreateCycle(2, 3, parentOf)).toBe(true);
  });

  it('allows moves that keep a tree', () => {
    expect(wouldCreateCycle(3, 1, parentOf)).toBe(false);
    expect(wouldCreateCycle(4, 3, parentOf)).toBe(false);
    expect(wouldCreateCycle(1, 4, parentOf)).toBe(false);
  });

  it('stops on a tree that already loops', () => {
    const broken = new Map<number, number>([
      [5, 6],
      [6, 5],
    ]);
    expect(wouldCreateCycle(7, 5, (id) => broken.get(id) ?? null)).toBe(true);
  });
});
