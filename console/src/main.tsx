// The console's boot: a sign-in link's token is taken from the fragment, or the identity provider's answer
// from the callback's query, and the address cleared, before anything else runs; then the pages render.
import { QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router/dom';
import { createQueryClient } from './api/query.ts';
import { takeSignInResponseFromLocation } from './auth/callback.ts';
import { takeTokenFromLocation } from './auth/session.ts';
import { BASENAME, createRouter } from './router.tsx';
import { RootBoundary } from './shell/RootBoundary.tsx';
import './styles.css';

takeTokenFromLocation(BASENAME);
takeSignInResponseFromLocation(BASENAME);

const root = document.getElementById('root');
if (!root) throw new Error('the page has no #root element');
createRoot(root).render(
  <StrictMode>
    <RootBoundary>
      <QueryClientProvider client={createQueryClient()}>
        <RouterProvider router={createRouter()} />
      </QueryClientProvider>
    </RootBoundary>
  </StrictMode>,
);
