// Every page of the console and the URL it answers at (under /console/). A page is one file under
// pages/<area>/ whose default export is the page's component, loaded when first opened (Home is in the
// first bundle). The API's own links (activity items, attention items, notifications) are paths of this
// table: docs/console.md lists them.
import type { ComponentType } from 'react';
import { createBrowserRouter, Navigate, type RouteObject, useParams } from 'react-router';
import HomePage from './pages/home/HomePage.tsx';
import { ErrorPage, NotFoundPage } from './shell/ErrorPage.tsx';
import { Layout } from './shell/Layout.tsx';

export const BASENAME = '/console';

/** A page loaded on first use: `page(() => import('./pages/runs/RunsPage.tsx'))`. */
const page = (load: () => Promise<{ default: ComponentType }>) => async () => ({
  Component: (await load()).default,
});

/** `/settings/webhooks/<id>` (the API's link to a failing endpoint) is the endpoint's page. */
function EndpointLink() {
  const { id = '' } = useParams();
  return <Navigate to={`/webhooks/endpoints/${encodeURIComponent(id)}`} replace />;
}

/** The signed-in pages, by path. */
export const pages: RouteObject[] = [
  { index: true, Component: HomePage },
  { path: 'apps', lazy: page(() => import('./pages/apps/AppsPage.tsx')) },
  { path: 'apps/approvals', lazy: page(() => import('./pages/apps/PublishRequestsPage.tsx')) },
  { path: 'apps/installs', lazy: page(() => import('./pages/installs/InstallsPage.tsx')) },
  { path: 'apps/installs/:name', lazy: page(() => import('./pages/installs/InstallPage.tsx')) },
  {
    path: 'apps/installs/:name/changes/:changeId',
    lazy: page(() => import('./pages/installs/InstallChangePage.tsx')),
  },
  { path: 'apps/:name', lazy: page(() => import('./pages/apps/AppPage.tsx')) },
  { path: 'apps/:name/versions/:versionId', lazy: page(() => import('./pages/apps/AppVersionPage.tsx')) },
  { path: 'runs', lazy: page(() => import('./pages/runs/RunsPage.tsx')) },
  { path: 'runs/:id', lazy: page(() => import('./pages/runs/RunPage.tsx')) },
  { path: 'vendor-sessions', lazy: page(() => import('./pages/vendor-sessions/VendorSessionsPage.tsx')) },
  { path: 'webhooks', lazy: page(() => import('./pages/webhooks/EndpointsPage.tsx')) },
  { path: 'webhooks/endpoints/:id', lazy: page(() => import('./pages/webhooks/EndpointPage.tsx')) },
  { path: 'webhooks/events', lazy: page(() => import('./pages/webhooks/EventsPage.tsx')) },
  { path: 'webhooks/deliveries', lazy: page(() => import('./pages/webhooks/DeliveriesPage.tsx')) },
  { path: 'settings/webhooks/:id', Component: EndpointLink },
  { path: 'approvals', lazy: page(() => import('./pages/approvals/ApprovalsPage.tsx')) },
  {
    path: 'approvals/definitions/:id',
    lazy: page(() => import('./pages/approvals/DefinitionApprovalPage.tsx')),
  },
  { path: 'usage', lazy: page(() => import('./pages/usage/UsagePage.tsx')) },
  { path: 'workflows/:key', lazy: page(() => import('./pages/definitions/WorkflowPage.tsx')) },
  {
    path: 'workflows/:key/versions/:version',
    lazy: page(() => import('./pages/definitions/WorkflowPage.tsx')),
  },
  { path: 'rule-sets/:key', lazy: page(() => import('./pages/definitions/RuleSetPage.tsx')) },
  {
    path: 'rule-sets/:key/versions/:version',
    lazy: page(() => import('./pages/definitions/RuleSetPage.tsx')),
  },
  { path: 'cases/:id', lazy: page(() => import('./pages/cases/CasePage.tsx')) },
  { path: '*', Component: NotFoundPage },
];

export const routes: RouteObject[] = [
  // Outside the shell, loaded on first use with the OpenID Connect library.
  { path: '/sign-in', lazy: page(() => import('./auth/SignInPage.tsx')), ErrorBoundary: ErrorPage },
  { path: '/auth/callback', lazy: page(() => import('./auth/CallbackPage.tsx')), ErrorBoundary: ErrorPage },
  {
    path: '/',
    Component: Layout,
    ErrorBoundary: ErrorPage,
    // A page's failure shows inside the shell: the sections stay to go elsewhere.
    children: [{ ErrorBoundary: ErrorPage, children: pages }],
  },
];

export const createRouter = () => createBrowserRouter(routes, { basename: BASENAME });
