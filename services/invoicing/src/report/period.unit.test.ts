import { periodProblem } from './period';

describe('a report period', () => {
  it('is one day or more, up to ten years, both ends inclusive', () => {
    expect(periodProblem('2026-01-01', '2026-01-01')).toBeUndefined();
    expect(periodProblem('2016-01-01', '2025-12-31')).toBeUndefined();
    expect(periodProblem('2016-03-01', '2026-02-28')).toBeUndefined();
    expect(periodProblem('9995-01-01', '9999-12-31')).toBeUndefined();
  });

  it('names date_from when it is after date_to', () => {
    expect(periodProblem('2026-01-02', '2026-01-01')).toEqual({ field: 'date_from', message: 'date_from must not be after date_to' });
  });

  it('names date_to when the period is longer than ten years', () => {
    expect(periodProblem('2016-01-01', '2026-01-01')?.field).toBe('date_to');
    expect(periodProblem('1900-01-01', '9999-12-31')?.field).toBe('date_to');
    // Ten years from 29 February end on the 27th of the tenth February on; the 28th is one day more.
    expect(periodProblem('2016-02-29', '2026-02-27')).toBeUndefined();
    expect(periodProblem('2016-02-29', '2026-02-28')?.message).toBe(
      'date_to must be less than 10 years after date_from (before 2026-02-28)',
    );
  });
});
