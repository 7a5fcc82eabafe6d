import { defineOperation } from '../operation';
import * as s from './schemas';

const PATH = '/integrations/webhooks';
const patternRule = {
  field: 'events',
  rule: 'each item is an event type of the AsyncAPI document, `*`, or a prefix of event types followed by `.*` (invoicing.*)',
};
const targetRule = {
  field: 'url',
  rule: 'https only (unless WEBHOOKS_ALLOW_HTTP=1); its host must resolve, and to no loopback, private, link-local, metadata or reserved address (unless WEBHOOKS_ALLOW_PRIVATE=1)',
};

export const createEndpoint = defineOperation({
  name: 'webhooks.endpoint.create',
  service: 'webhooks',
  summary: 'Add a webhook endpoint of the organization; answers its signing secret, once',
  paths: [PATH],
  select: { action: 'create' },
  write: true,
  request: s.createEndpointRequest,
  reply: s.endpointWithSecretReply,
  rules: [patternRule, targetRule],
});

export const listEndpoints = defineOperation({
  name: 'webhooks.endpoint.list',
  service: 'webhooks',
  summary: "The organization's webhook endpoints (never their secrets)",
  paths: [PATH],
  select: { action: 'list' },
  write: false,
  request: s.listEndpointsRequest,
  reply: s.listEndpointsReply,
});

export const updateEndpoint = defineOperation({
  name: 'webhooks.endpoint.update',
  service: 'webhooks',
  summary: "Change an endpoint's URL, events, description or status (enabled again after it was disabled)",
  paths: [PATH],
  select: { action: 'update' },
  write: true,
  request: s.updateEndpointRequest,
  reply: s.endpointReply,
  rules: [patternRule, targetRule],
});

export const deleteEndpoint = defineOperation({
  name: 'webhooks.endpoint.delete',
  service: 'webhooks',
  summary: 'Delete an endpoint: nothing more is sent to it, and its log goes with it',
  paths: [PATH],
  select: { action: 'delete' },
  write: true,
  request: s.endpointRequest('delete'),
  reply: s.messageReply,
});

export const rotateSecret = defineOperation({
  name: 'webhooks.endpoint.rotate_secret',
  service: 'webhooks',
  summary: 'A new signing secret, answered once; the old one keeps signing beside it for 24 hours',
  paths: [PATH],
  select: { action: 'rotate_secret' },
  write: true,
  request: s.endpointRequest('rotate_secret'),
  reply: s.endpointWithSecretReply,
});

export const testEndpoint = defineOperation({
  name: 'webhooks.endpoint.test',
  service: 'webhooks',
  summary: 'Send a signed `webhook.ping` to the endpoint (queued like any delivery; see `deliveries`)',
  paths: [PATH],
  select: { action: 'test' },
  write: true,
  request: s.endpointRequest('test'),
  reply: s.deliveryReply,
});

export const listDeliveries = defineOperation({
  name: 'webhooks.delivery.list',
  service: 'webhooks',
  summary: "An endpoint's delivery log, newest first: event, attempts, last attempt's time, HTTP status, duration and error, next attempt",
  paths: [PATH],
  select: { action: 'deliveries' },
  write: false,
  request: s.listDeliveriesRequest,
  reply: s.listDeliveriesReply,
});

export const listAttempts = defineOperation({
  name: 'webhooks.delivery.attempts',
  service: 'webhooks',
  summary: "One delivery's attempts, newest first: time, HTTP status, duration, error and the first kilobyte of the answer",
  paths: [PATH],
  select: { action: 'attempts' },
  write: false,
  request: s.listAttemptsRequest,
  reply: s.listAttemptsReply,
  rules: [{ field: 'delivery_id', rule: 'a delivery of the endpoint' }],
});

export const redeliver = defineOperation({
  name: 'webhooks.delivery.redeliver',
  service: 'webhooks',
  summary: 'Send one delivery again, or every delivery of the endpoint not delivered since a time, with a fresh retry schedule',
  paths: [PATH],
  select: { action: 'redeliver' },
  write: true,
  request: s.redeliverRequest,
  reply: s.redeliverReply,
  rules: [{ field: 'delivery_id', rule: 'either delivery_id or since is given' }],
});

export const integrationsOperations = [
  createEndpoint,
  listEndpoints,
  updateEndpoint,
  deleteEndpoint,
  rotateSecret,
  testEndpoint,
  listDeliveries,
  listAttempts,
  redeliver,
];
