import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const root = fileURLToPath(new URL('.', import.meta.url));

// The daemon serves the build at /ui/ (daemon/src/ui/static.ts); `npm run build:ui` writes renderer/dist.
export default defineConfig({
  root,
  base: '/ui/',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true },
  server: {
    // `npx vite --config renderer/vite.config.ts` with a daemon on the default port: same-origin API calls.
    proxy: { '/api': 'http://127.0.0.1:4780' },
  },
});
