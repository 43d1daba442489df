import '@cloudscape-design/global-styles/index.css';

import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router-dom';

import App from './App';
import { completeSignIn } from './lib/auth';
import { loadConfig } from './lib/config';

async function start() {
  await loadConfig();
  await completeSignIn().catch(() => false);
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <BrowserRouter>
        <App />
      </BrowserRouter>
    </StrictMode>,
  );
}

void start();
