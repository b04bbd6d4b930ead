// The notifications' front door: what other layers use of the in-app notifications. Files outside
// src/notifications import this file only; src/db/schema.ts alone reads tables.ts directly (it gathers
// every domain's tables for Drizzle).

// The api: the notification routes.

export { notificationRoutes } from './routes.ts';

// Every layer that tells a tenant's people something: one notification, in the writer's transaction.

export { notify } from './service.ts';
