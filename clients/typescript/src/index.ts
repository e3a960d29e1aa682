export { Client, retryAfterMs, type CallOptions, type ClientOptions, type ListItem, type ListPath, type ListQuery, type Success, type paths } from './client';
export {
  ApiError,
  AuthenticationError,
  ConflictError,
  ConnectionError,
  InvalidRequestError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  ServerError,
  UnprocessableError,
  type ErrorBody,
  type ErrorDetail,
} from './errors';
export {
  WebhookVerificationError,
  serviceSignature,
  standardSignature,
  verify,
  webhooks,
  type VerifyOptions,
  type WebhookEvent,
  type WebhookEventType,
  type WebhookHeaders,
} from './webhooks';
export type { components, operations } from './schema';
