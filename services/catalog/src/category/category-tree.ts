/**
 * Would making `parentId` the parent of `categoryId` close a loop? True when the category is the
 * new parent itself or one of the new parent's ancestors. `parentOf` reads the tree (as one load
 * read it, CategoryTree); a visited set guards against a tree that is already broken.
 */
export function wouldCreateCycle(categoryId: number, parentId: number, parentOf: (id: number) => number | null): boolean {
  const seen = new Set<number>();
  let current: number | null = parentId;
  while (current !== null) {
    if (current === categoryId) return true;
    if (seen.has(current)) return true;
    seen.add(current);
    current = parentOf(current);
  }
  return false;
}
