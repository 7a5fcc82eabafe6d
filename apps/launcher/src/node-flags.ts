/**
 * The V8 flags every serving process of the system starts with: the launcher's children, the
 * in-process mode (package.json `start`), the container image's entry point (Dockerfile), and the
 * bench's stand-ins, so that they measure the same runtime. tests/repo checks each place carries them.
 *
 * `--no-memory-reducer`: after about half a minute with little allocation, V8's memory reducer
 * shrinks the heap, and the next burst of requests then pays for it in garbage collection for tens
 * of seconds (docs/performance.md, "Why the code is shaped so"). A service without the reducer
 * keeps the heap its last burst grew, about twice the resident memory after a minute idle: memory
 * held for a server's steady latency. It cannot go through
 * NODE_OPTIONS, and set at run time (v8.setFlagsFromString) it took effect only some of the time.
 */
export const SERVING_NODE_FLAGS: readonly string[] = ['--no-memory-reducer'];
