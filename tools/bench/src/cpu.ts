import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU accounting from /proc (Linux only; elsewhere every figure is undefined): the CPU time of a
 * set of processes and their descendants, and the busy time of the whole machine, over a window.
 */
export interface CpuUsage {
  /** CPU seconds the measured processes (and their children) used in the window. */
  processSeconds: number;
  /** CPU seconds the whole machine was busy in the window (every process, the kernel included; not steal). */
  machineBusySeconds: number;
  /**
   * CPU seconds the hypervisor gave to other guests while this VM wanted to run (steal): the
   * noise of a shared host, which slows every process alike without showing in their CPU time.
   */
  stolenSeconds: number;
}

let hz: number | undefined;
function ticksPerSecond(): number {
  if (hz === undefined) {
    try {
      hz = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      hz = 100;
    }
  }
  return hz;
}

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces), or undefined if it is gone. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** The given processes and every process descending from them, as they are now. */
export function withDescendants(roots: readonly number[]): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(Number(entry));
    if (!fields) continue;
    const ppid = Number(fields[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
  }
  const all = new Set<number>();
  const todo = [...roots];
  while (todo.length) {
    const pid = todo.pop() as number;
    if (all.has(pid)) continue;
    all.add(pid);
    todo.push(...(children.get(pid) ?? []));
  }
  return [...all];
}

/** utime + stime of the processes, in ticks; a process that is gone counts 0. */
function processTicks(pids: readonly number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    const f = statFields(pid);
    // Fields 14 and 15 of stat (utime, stime) are at 11 and 12 once the pid and name are cut off.
    if (f) ticks += Number(f[11]) + Number(f[12]);
  }
  return ticks;
}

/** The machine's busy and stolen ticks since boot, from /proc/stat's first line. */
function machineTicks(): { busy: number; stolen: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
  const [, ...values] = line.trim().split(/\s+/);
  // user nice system idle iowait irq softirq steal (guest time is already counted in user).
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = values.slice(0, 8).map(Number);
  return { busy: user + nice + system + irq + softirq, stolen: steal };
}

/** Starts measuring; the returned function ends the window. Undefined where /proc is missing. */
export function startCpuMeter(roots: readonly number[]): (() => CpuUsage) | undefined {
  try {
    const perSecond = ticksPerSecond();
    const pids = withDescendants(roots);
    const p0 = processTicks(pids);
    const m0 = machineTicks();
    return () => {
      const m1 = machineTicks();
      return {
        processSeconds: (processTicks(pids) - p0) / perSecond,
        machineBusySeconds: (m1.busy - m0.busy) / perSecond,
        stolenSeconds: (m1.stolen - m0.stolen) / perSecond,
      };
    };
  } catch {
    return undefined;
  }
}

/**
 * Waits until the processes (and their children) have been idle for two intervals in a row, so
 * that work a seeding or a previous run left behind (events still being published and consumed,
 * read models catching up) does not run inside the next measured window. Gives up after `maxMs`;
 * returns whether they went idle.
 */
export async function waitIdle(
  roots: readonly number[],
  opts: { maxMs?: number; intervalMs?: number; maxCores?: number } = {},
): Promise<boolean> {
  const { maxMs = 20_000, intervalMs = 250, maxCores = 0.05 } = opts;
  let pids: number[];
  try {
    pids = withDescendants(roots);
  } catch {
    return true;
  }
  const perSecond = ticksPerSecond();
  const deadline = Date.now() + maxMs;
  let quiet = 0;
  let last = processTicks(pids);
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, intervalMs));
    const now = processTicks(pids);
    const cores = (now - last) / perSecond / (intervalMs / 1000);
    last = now;
    quiet = cores <= maxCores ? quiet + 1 : 0;
    if (quiet >= 2) return true;
  }
  return false;
}

/** A process's label for the breakdown: the service a node process runs, else its program's name. */
export function processLabel(argv: readonly string[]): string {
  const program = argv[0] ?? '';
  if (argv.length === 0) return 'kernel';
  if (program.startsWith('postgres')) return 'postgres';
  if (program.includes('beam.smp') || program.endsWith('/erl')) return 'rabbitmq';
  if (program === 'node' || program.endsWith('/node')) {
    const at = argv.findIndex((a, i) => i > 0 && !a.startsWith('-'));
    const script = argv[at] ?? '';
    // A service or app by its folder; the bench's own processes (load generator, stand-ins) by their
    // file, and the floor's services by the role after it.
    const service = /(?:services|apps)\/([^/]+)\//.exec(script);
    const role = argv[at + 1];
    return `node ${service?.[1] ?? script.split('/').slice(-2).join('/')}${service || !role ? '' : ` ${role}`}`;
  }
  return program.split('/').pop() ?? program;
}

function processArgv(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return undefined;
  }
}

/**
 * Diagnostics only (`BENCH_CPU_BY_PROCESS=1`): every process on the machine, its CPU over a window
 * grouped by label, so a run can say which process a request's machine CPU went to.
 */
export function startProcessBreakdown(): () => Map<string, number> {
  const perSecond = ticksPerSecond();
  const snapshot = (): Map<number, { label: string; ticks: number }> => {
    const out = new Map<number, { label: string; ticks: number }>();
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const pid = Number(entry);
      const f = statFields(pid);
      const argv = f && processArgv(pid);
      const label = argv && processLabel(argv);
      if (f && label) out.set(pid, { label, ticks: Number(f[11]) + Number(f[12]) });
    }
    return out;
  };
  const before = snapshot();
  return () => {
    const seconds = new Map<string, number>();
    for (const [pid, now] of snapshot()) {
      const delta = now.ticks - (before.get(pid)?.ticks ?? 0);
      if (delta > 0) seconds.set(now.label, (seconds.get(now.label) ?? 0) + delta / perSecond);
    }
    return seconds;
  };
}
