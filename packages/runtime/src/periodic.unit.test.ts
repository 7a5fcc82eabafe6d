import { createLogger } from './logger';
import { periodicTask } from './periodic';

describe('periodic task', () => {
  it('runs a pass at start, never two at once, and stop() waits for the pass in flight, which sees it stopping', async () => {
    let passes = 0;
    let sawStopping = false;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const task = periodicTask('test', 5, createLogger('test', 'silent'), async (stopping) => {
      passes++;
      await gate;
      sawStopping = stopping();
    });
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    task.start();
    // Six ticks come while the first pass runs: they start nothing.
    jest.advanceTimersByTime(30);
    jest.useRealTimers();
    expect(passes).toBe(1);
    let stopped = false;
    const stopping = task.stop().then(() => (stopped = true));
    await new Promise((r) => setImmediate(r));
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect({ stopped, sawStopping, passes }).toEqual({ stopped: true, sawStopping: true, passes: 1 });
  });
});
