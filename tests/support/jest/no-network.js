/**
 * The fast tier needs nothing but Node: while a unit test file runs, any attempt to open a
 * connection or a listening socket throws, naming what was tried, so a test that needs PostgreSQL,
 * RabbitMQ or a server of its own fails at once instead of slowing the tier (it belongs in
 * `*.int.test.ts`). Installed before the file's tests and removed after them, as unit and other files
 * may share a jest worker when every project runs together.
 */
const net = require('node:net');
const dgram = require('node:dgram');

const blocked = (what) =>
  function () {
    throw new Error(`a unit test may not use the network (${what}): move the test to a *.int.test.ts file`);
  };

const patches = [
  [net.Socket.prototype, 'connect', 'net.Socket.connect'],
  [net.Server.prototype, 'listen', 'net.Server.listen'],
  [dgram.Socket.prototype, 'bind', 'dgram.Socket.bind'],
  [dgram.Socket.prototype, 'send', 'dgram.Socket.send'],
  [globalThis, 'fetch', 'fetch'],
];
let saved = [];

beforeAll(() => {
  saved = patches.map(([target, key]) => [target, key, target[key]]);
  for (const [target, key, what] of patches) target[key] = blocked(what);
});
afterAll(() => {
  for (const [target, key, original] of saved) target[key] = original;
  saved = [];
});
