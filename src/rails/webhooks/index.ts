/**
 * The success webhook (docs/api.md "Events"; docs/decisions.md section 11): the outbox row
 * written with the move to success, the dispatcher with its exact retry schedule, resends; and the
 * merchants' event subscriptions (docs/decisions.md section 26) through the same outbox.
 */
export { createEventSubscriptions, type EventSubscriptions } from './event-subscriptions.js';
export { eventSubscriptionsRoutes } from './event-subscriptions-routes.js';
export { EVENT_TYPES, EventBodySchema, type EventType } from './event-types.js';
export { type WebhookBody, WebhookBodySchema } from './webhook-body.js';
export { createWebhookDispatcher, type WebhookDispatcher } from './webhook-dispatcher.js';
export { webhooksAdminRoutes } from './webhooks-admin-routes.js';
export { createWebhooksService, type WebhooksService } from './webhooks-service.js';
