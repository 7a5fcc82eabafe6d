import type { Logger } from './logger';

/** Work a service runs beside its handlers: started after start-up, stopped before shutdown. */
export interface BackgroundTask {
  start(): void;
  stop(): Promise<void>;
}

/**
 * A pass of background work at start-up and then every interval, never two at once; stop() waits
 * for a pass in flight, which may ask `stopping()` between its steps to end early. A failed pass is
 * logged and tried again at the next tick.
 */
export function periodicTask(
  name: string,
  intervalMs: number,
  log: Logger,
  pass: (stopping: () => boolean) => Promise<unknown>,
): BackgroundTask {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  const taskLog = log.child({ task: name });
  const tick = () => {
    if (running || stopped) return;
    running = pass(() => stopped)
      .then(() => undefined)
      .catch((err: unknown) => taskLog.error({ err }, `${name} pass failed; will retry`))
      .finally(() => (running = undefined));
  };
  return {
    start() {
      stopped = false;
      tick();
      timer = setInterval(tick, intervalMs);
      timer.unref();
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
