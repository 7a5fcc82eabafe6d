/**
 * The V8 flags every serving process of the system starts with: the launcher's children, the
 * in-process mode (package.json `start`), the container image's entry point (Dockerfile), and the
 * bench's stand-ins, so that they measure the same runtime. tests/repo checks each place carries them.
 *
 * `--no-memory-reducer`: after about half a minute with little allocation, V8's memory reducer
 * shrinks the heap, and the next burst of requests then pays for it in garbage collection for tens
 * of seconds. Measured here (list partners over RabbitMQ, 60 s idle, then 8 s of warm-up and 10 s
 * measured): the gateway's and partners' CPU per list was 0.57-0.58 ms against 0.32-0.35 ms with the
 * flag, and the collector's share of partners' CPU profile went from 2.8 % to 12.9 %. A service
 * without the reducer keeps the heap its last burst grew (partners: 179 MB resident after a minute
 * idle, against 88 MB with it): memory held for a server's steady latency. It cannot go through
 * NODE_OPTIONS, and set at run time (v8.setFlagsFromString) it took effect only some of the time.
 */
export const SERVING_NODE_FLAGS: readonly string[] = ['--no-memory-reducer'];
