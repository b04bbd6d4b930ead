// Home's attention list's front door (docs/notifications.md "Home's attention list"): the route the api
// registers. The sources read in their owners' folders; the list, its rules and its route live here.
export { attentionRoutes } from './attention-routes.ts';
