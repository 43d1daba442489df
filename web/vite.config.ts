import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// config.json is fetched at runtime (see src/config.ts), so one build serves every deployment.
// `npm run dev` proxies /api and /ws to a local sandbox or the stub in web/dev/.
const backend = process.env.LAUNCHPOD_BACKEND ?? 'http://127.0.0.1:3099';

export default defineConfig({
  plugins: [react()],
  base: '/',
  build: {
    outDir: 'dist',
    chunkSizeWarningLimit: 1000,
    rollupOptions: {
      output: {
        // Cloudscape is most of the bundle; keep it in its own long-cached chunk.
        manualChunks(id) {
          if (id.includes('node_modules/@cloudscape-design')) return 'cloudscape';
          if (id.includes('node_modules/react') || id.includes('node_modules/scheduler')) return 'react';
          return undefined;
        },
      },
    },
  },
  server: {
    proxy: {
      '/api': backend,
      '/ws': { target: backend.replace(/^http/, 'ws'), ws: true },
    },
  },
});
