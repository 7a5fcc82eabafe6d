export { System, type SystemOptions } from './system';
export { serviceDefinitions } from './services';
