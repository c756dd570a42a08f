import './zod-config';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router-dom';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { SessionProvider } from './api/session';
import { retryQuery } from './api/client';
import { App } from './app';
import './styles.css';
import { enterAtBoxPath } from './entry-paths';

// The daemon's refusals are not asked again (api/client.ts retryQuery); failures that may pass are.
const queryClient = new QueryClient({
  defaultOptions: { queries: { staleTime: 5_000, refetchOnWindowFocus: true, retry: retryQuery } },
});

// At a box's catalog URL (/ORG/BOX) a browser gets this page: show that box.
enterAtBoxPath(window.location, window.history);

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no element with id "root" to render the UI into');
createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <SessionProvider>
        <BrowserRouter basename="/ui">
          <App />
        </BrowserRouter>
      </SessionProvider>
    </QueryClientProvider>
  </StrictMode>,
);
