/**
 * Would making `parentId` the parent of `categoryId` close a loop? True when the category is the
 * new parent itself or one of the new parent's ancestors. `parentOf` reads the current tree; a
 * visited set guards against a tree that is already broken.
 */
export async function wouldCreateCycle(
  categoryId: number,
  parentId: number,
  parentOf: (id: number) => Promise<number | null>,
): Promise<boolean> {
  const seen = new Set<number>();
  let current: number | null = parentId;
  while (current !== null) {
    if (current === categoryId) return true;
    if (seen.has(current)) return true;
    seen.add(current);
    current = await parentOf(current);
  }
  return false;
}
