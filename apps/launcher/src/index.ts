export { System, type SystemOptions } from './system';
export { serviceDefinitions, systemTopology } from './services';
export { freePort } from './free-port';
export { SERVING_NODE_FLAGS } from './node-flags';
export { repoRoot } from './paths';
