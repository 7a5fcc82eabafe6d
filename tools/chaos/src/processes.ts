import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import type { ServiceName } from '@bo/contracts';
import { repoRoot, SERVING_NODE_FLAGS } from '@bo/launcher';

/** One process of the system under test: a service instance or the gateway. */
export interface ProcessSpec {
  /** Unique, e.g. `invoicing#2`. */
  name: string;
  role: ServiceName | 'gateway';
  env: Record<string, string>;
}

export interface ProcessExit {
  name: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  at: number;
  /** Whether the harness asked for it (kill -9, stop) or the process died on its own. */
  expected: boolean;
}

export function entryOf(role: ServiceName | 'gateway'): string {
  return join(repoRoot, 'services', role, 'dist', 'main.js');
}

interface Running {
  child: ChildProcess;
  expectExit: boolean;
  exited: Promise<void>;
}

/**
 * The processes of one run, each its own `node dist/main.js` with output to a log file. A process
 * that dies without being asked is recorded and restarted, as an orchestrator would.
 */
export class Fleet {
  private readonly running = new Map<string, Running>();
  private readonly logs = new Map<string, WriteStream>();
  readonly exits: ProcessExit[] = [];
  private stopping = false;

  constructor(
    readonly specs: readonly ProcessSpec[],
    private readonly logDir: string,
    private readonly onEvent: (line: string) => void = () => undefined,
  ) {}

  get names(): string[] {
    return this.specs.map((s) => s.name);
  }

  instancesOf(role: ServiceName | 'gateway'): number {
    return this.specs.filter((s) => s.role === role).length;
  }

  logFile(name: string): string {
    return join(this.logDir, `${name.replace('#', '-')}.log`);
  }

  private spec(name: string): ProcessSpec {
    const spec = this.specs.find((s) => s.name === name);
    if (!spec) throw new Error(`no process named ${name}`);
    return spec;
  }

  /** Starts `name` unless it runs; after stopAll, nothing starts again (a fault still under way may ask). */
  start(name: string): void {
    if (this.running.has(name) || this.stopping) return;
    const spec = this.spec(name);
    let log = this.logs.get(name);
    if (!log) {
      log = createWriteStream(this.logFile(name), { flags: 'a' });
      this.logs.set(name, log);
    }
    log.write(`\n=== ${new Date().toISOString()} chaos: starting ${name}\n`);
    const child = spawn(process.execPath, [...SERVING_NODE_FLAGS, entryOf(spec.role)], {
      env: spec.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    const entry: Running = {
      child,
      expectExit: false,
      exited: new Promise<void>((resolve) => {
        child.once('exit', (code, signal) => {
          this.running.delete(name);
          const expected = entry.expectExit || this.stopping;
          this.exits.push({ name, code, signal, at: Date.now(), expected });
          log?.write(
            `\n=== ${new Date().toISOString()} chaos: ${name} exited (code ${code}, signal ${signal})${expected ? '' : ' UNEXPECTEDLY'}\n`,
          );
          if (!expected) {
            this.onEvent(`${name} exited by itself (code ${code}, signal ${signal}); restarting it`);
            setTimeout(() => {
              if (!this.stopping) this.start(name);
            }, 500);
          }
          resolve();
        });
      }),
    };
    this.running.set(name, entry);
  }

  startAll(filter: (spec: ProcessSpec) => boolean = () => true): void {
    for (const spec of this.specs) if (filter(spec)) this.start(spec.name);
  }

  isRunning(name: string): boolean {
    return this.running.has(name);
  }

  pid(name: string): number | undefined {
    return this.running.get(name)?.child.pid;
  }

  /** kill -9 and wait for the exit. */
  async kill9(name: string): Promise<void> {
    const entry = this.running.get(name);
    if (!entry) return;
    entry.expectExit = true;
    entry.child.kill('SIGKILL');
    await entry.exited;
  }

  /** SIGTERM, then SIGKILL after `graceMs`. */
  async stop(name: string, graceMs = 10_000): Promise<void> {
    const entry = this.running.get(name);
    if (!entry) return;
    entry.expectExit = true;
    entry.child.kill('SIGTERM');
    const timer = setTimeout(() => entry.child.kill('SIGKILL'), graceMs);
    await entry.exited;
    clearTimeout(timer);
  }

  async stopAll(): Promise<void> {
    this.stopping = true;
    // The gateway first, so no new work reaches the services while they drain.
    await Promise.all(this.specs.filter((s) => s.role === 'gateway').map((s) => this.stop(s.name)));
    await Promise.all(this.specs.filter((s) => s.role !== 'gateway').map((s) => this.stop(s.name)));
    await Promise.all([...this.logs.values()].map((l) => new Promise<void>((r) => l.end(() => r()))));
    this.logs.clear();
  }

  unexpectedExits(): ProcessExit[] {
    return this.exits.filter((e) => !e.expected);
  }
}
