export {
  createClient,
  type Client,
  type OperationName,
  type OperationNamed,
  type OperationMethod,
  type OperationTree,
  type PublicOperation,
  type ReplyBody,
  type RequestBody,
} from './client';
export { ApiError, NetworkError, type ApiErrorCode, type CallTrace } from './errors';
export { defaultRetryPolicy, type RetryNotice, type RetryPolicy } from './retry';
export { defaultTimeoutMs, type CallOptions, type ClientOptions } from './transport';
