import { decideRotation } from './decide-rotation';

describe('deciding a rotation of an endpoint signing secret', () => {
  const now = new Date('2026-11-29T12:00:00Z');

  it('given an endpoint, when its secret is rotated, then the new one signs and the one replaced signs beside it for the overlap', () => {
    expect(decideRotation({ secret: 'sealed-old' }, 'sealed-new', now, 86_400_000)).toEqual({
      secret: 'sealed-new',
      previous_secret: 'sealed-old',
      previous_secret_expires_at: new Date('2026-11-30T12:00:00Z'),
    });
  });

  it('given an endpoint rotated within the overlap, when rotated again, then only the secret it replaces is kept', () => {
    const first = decideRotation({ secret: 'a' }, 'b', now, 60_000);
    const second = decideRotation(first, 'c', new Date(now.getTime() + 1_000), 60_000);
    expect(second).toEqual({ secret: 'c', previous_secret: 'b', previous_secret_expires_at: new Date(now.getTime() + 61_000) });
  });
});
