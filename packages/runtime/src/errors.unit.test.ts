import { AppError, defineRefusals, isRefusal, Refused } from './errors';

const refusals = defineRefusals('shelf', {
  boxNotFound: (id: number) => ({ code: 'not_found', message: `Box ${id} not found` }),
  tooHeavy: (kg: number) => ({ code: 'validation_failed', field: 'weight', message: `weight ${kg} kg is over the shelf's 20 kg` }),
  boxesTooWide: (indexes: number[]) => ({
    code: 'validation_failed',
    message: 'Some boxes are too wide',
    errors: indexes.map((i) => ({ field: `boxes.${i}`, message: `boxes.${i} is wider than the shelf` })),
  }),
});

describe("a module's refusals", () => {
  it('given a named refusal, when made, then it is a 400 AppError naming its module and refusal, with its field when it has one', () => {
    const heavy = refusals.tooHeavy(25);
    expect(heavy).toBeInstanceOf(AppError);
    expect(heavy).toBeInstanceOf(Refused);
    expect(heavy).toMatchObject({
      status: 400,
      code: 'validation_failed',
      refusal: 'shelf.tooHeavy',
      message: "weight 25 kg is over the shelf's 20 kg",
      errors: [{ field: 'weight', message: "weight 25 kg is over the shelf's 20 kg" }],
    });
    expect(refusals.boxNotFound(3)).toMatchObject({ status: 400, code: 'not_found', refusal: 'shelf.boxNotFound', errors: undefined });
  });

  it('given a refusal naming several fields, each with its own message, then its errors are those', () => {
    expect(refusals.boxesTooWide([0, 2])).toMatchObject({
      status: 400,
      code: 'validation_failed',
      refusal: 'shelf.boxesTooWide',
      message: 'Some boxes are too wide',
      errors: [
        { field: 'boxes.0', message: 'boxes.0 is wider than the shelf' },
        { field: 'boxes.2', message: 'boxes.2 is wider than the shelf' },
      ],
    });
  });

  it('given refusals of two names, then isRefusal tells them apart by name, and a plain AppError is neither', () => {
    expect(isRefusal(refusals.boxNotFound(3), 'shelf.boxNotFound')).toBe(true);
    expect(isRefusal(refusals.tooHeavy(25), 'shelf.boxNotFound')).toBe(false);
    expect(isRefusal(new AppError(400, 'not_found', 'Box 3 not found'), 'shelf.boxNotFound')).toBe(false);
  });
});
