import autocannon from 'autocannon';
import { startCpuMeter, startProcessBreakdown } from './cpu';

/** Per-connection state autocannon hands to each step; it lives from a sequence's first step to its last. */
export type Context = Record<string, unknown>;

/** One HTTP request of a scenario; a scenario of several steps sends them in order on each connection. */
export interface Step {
  name: string;
  path: string;
  /** The body, or a function making each request's body (it may read what an earlier step left in the context). */
  body: string | ((context: Context) => string);
  /** Extra headers made for each request. */
  headers?: (context: Context) => Record<string, string>;
  /** Sees each reply (status, raw HTTP body); used to collect ids and to time follow-ups. */
  onReply?: (status: number, body: string, context: Context) => void;
  /** How long a reply may take before it counts as a timeout (default 10 s): an operation that states a longer wait of its own (timeoutMs) is given it. */
  timeoutSeconds?: number;
}

/** A request and reply of a step as they travelled, for the ceiling to imitate. */
export interface Sample {
  request: string;
  /** The envelope's `body`, serialized as the service sent it. */
  reply: string;
}

export interface LoadSpec {
  base: string;
  token: string;
  steps: readonly Step[];
  connections: number;
  /** Run for this long ... */
  seconds?: number;
  /** ... or until this many replies (a pool of one-use records), stopped anyway after `capSeconds`. */
  amount?: number;
  capSeconds?: number;
  /** Processes whose CPU time (with their children's) is counted per request. */
  cpuRoots?: readonly number[];
  /** Keeps the first successful request and reply of each step here (warm-ups). */
  capture?: Map<string, Sample>;
}

export interface LoadResult {
  /** Successful (2xx) replies per second. */
  rps: number;
  p50: number;
  p99: number;
  /** 2xx replies. */
  ok: number;
  non2xx: number;
  timeouts: number;
  /** Connection errors and timeouts (autocannon counts a timeout as an error). */
  connectionErrors: number;
  /** Everything that is not a 2xx: non-2xx replies, timeouts and connection errors. */
  errors: number;
  statusCodes: Record<string, number>;
  seconds: number;
  /** CPU milliseconds per successful request: of the measured processes, and of the whole machine. */
  cpu?: { processMsPerRequest: number; machineMsPerRequest: number; machineBusyCores: number; stolenCores: number };
  /** The first failed reply of a warm-up, to say what went wrong. */
  firstError?: string;
}

const ENVELOPE_OK = 200;

/** Runs autocannon against the gateway (or the ceiling's stand-in) and condenses its result. */
export function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const capture = spec.capture;
  let firstError: string | undefined;
  const requests = spec.steps.map((step, i) => {
    const dynamic = typeof step.body === 'function' || step.headers !== undefined || capture !== undefined;
    const request: Record<string, unknown> = { method: 'POST', path: step.path };
    if (typeof step.body === 'string') request['body'] = step.body;
    // autocannon copies every key it is given, an undefined one too: only set what exists.
    if (dynamic) {
      request['setupRequest'] = (req: { body?: unknown; headers: Record<string, string> }, context: Context) => {
        if (typeof step.body === 'function') req.body = step.body(context);
        if (step.headers) Object.assign(req.headers, step.headers(context));
        if (capture) context[`__request${i}`] = req.body;
        return req;
      };
    }
    if (step.onReply || capture) {
      request['onResponse'] = (status: number, body: string, context: Context) => {
        step.onReply?.(status, body, context);
        if (!capture) return;
        if (status === ENVELOPE_OK && !capture.has(step.name)) {
          const sent = context[`__request${i}`];
          capture.set(step.name, { request: String(sent), reply: JSON.stringify((JSON.parse(body) as { body: unknown }).body) });
        } else if (status !== ENVELOPE_OK && firstError === undefined) {
          firstError = `${step.name}: ${status} ${body.slice(0, 300)}`;
        }
      };
    }
    return request;
  });

  const endCpu = spec.cpuRoots ? startCpuMeter(spec.cpuRoots) : undefined;
  const endBreakdown = process.env['BENCH_CPU_BY_PROCESS'] === '1' ? startProcessBreakdown() : undefined;
  return new Promise((resolve, reject) => {
    let cap: NodeJS.Timeout | undefined;
    // Autocannon ends a run on its next 1 s sample tick, so its duration of a run of `amount` requests
    // is rounded up to whole seconds (a 1.1 s run counts 2.01 s): such a run is timed to its last reply.
    const startedAt = Date.now();
    let lastReplyAt: number | undefined;
    const instance = autocannon(
      {
        url: spec.base,
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${spec.token}` },
        connections: spec.connections,
        ...(spec.amount !== undefined ? { amount: spec.amount } : { duration: spec.seconds ?? 10 }),
        timeout: Math.max(10, ...spec.steps.map((st) => st.timeoutSeconds ?? 0)),
        requests,
      },
      (err, result) => {
        if (cap) clearTimeout(cap);
        const cpu = endCpu?.();
        if (endBreakdown && !err) logBreakdown(spec, endBreakdown(), result['2xx']);
        if (err) return reject(err instanceof Error ? err : new Error(String(err)));
        const ok = result['2xx'];
        const seconds = amountRunSeconds(result.duration, startedAt, lastReplyAt) ?? result.duration;
        resolve({
          rps: seconds > 0 ? ok / seconds : 0,
          p50: result.latency.p50,
          p99: result.latency.p99,
          ok,
          non2xx: result.non2xx,
          timeouts: result.timeouts,
          connectionErrors: result.errors,
          errors: result.non2xx + result.errors,
          statusCodes: Object.fromEntries(
            Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, (s as { count: number }).count]),
          ),
          seconds,
          cpu:
            cpu && ok > 0
              ? {
                  processMsPerRequest: (cpu.processSeconds * 1000) / ok,
                  machineMsPerRequest: (cpu.machineBusySeconds * 1000) / ok,
                  machineBusyCores: cpu.machineBusySeconds / seconds,
                  stolenCores: cpu.stolenSeconds / seconds,
                }
              : undefined,
          firstError,
        });
      },
    );
    if (spec.amount !== undefined) {
      instance.on('response', () => (lastReplyAt = Date.now()));
      if (spec.capSeconds) cap = setTimeout(() => instance.stop(), spec.capSeconds * 1000);
    }
  });
}

/**
 * The length of a run of a fixed number of requests: from its start to its last reply (undefined if
 * none came, or for a run of fixed duration), never more than autocannon's own rounded-up figure.
 */
export function amountRunSeconds(autocannonSeconds: number, startedAt: number, lastReplyAt: number | undefined): number | undefined {
  if (lastReplyAt === undefined || lastReplyAt <= startedAt) return undefined;
  return Math.min(autocannonSeconds, (lastReplyAt - startedAt) / 1000);
}

/** Diagnostics: CPU ms per successful request of each process group, largest first, on stderr. */
function logBreakdown(spec: LoadSpec, seconds: Map<string, number>, ok: number): void {
  if (ok === 0) return;
  const rows = [...seconds].sort((a, b) => b[1] - a[1]).filter(([, s]) => (s * 1000) / ok >= 0.005);
  const total = rows.reduce((sum, [, s]) => sum + s, 0);
  const name = spec.steps.map((s) => s.name).join('+');
  process.stderr.write(
    `cpu by process, ${name} at ${spec.connections} connections (${ok} ok), ms/request: total ${((total * 1000) / ok).toFixed(3)}\n` +
      rows.map(([label, s]) => `  ${((s * 1000) / ok).toFixed(3)}  ${label}\n`).join(''),
  );
}
