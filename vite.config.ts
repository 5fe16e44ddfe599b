import { defineConfig } from 'vite';

// The UI lives in ui/; `npm run build` writes a static site to dist/ with relative asset paths, so it
// works from any static file server and any sub-path.
export default defineConfig({
  root: 'ui',
  base: './',
  publicDir: false,
  build: {
    outDir: '../dist',
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 2000,
  },
  worker: { format: 'es' },
  server: { fs: { allow: ['..'] } },
});
