// The console's build: served by the api under /console/ (src/console/routes.ts) with a Content-Security-
// Policy that allows no inline script or style, so nothing may be inlined: no module-preload polyfill
// (an inline script), no assets turned into data: URLs for scripts or styles. Hashed names under assets/
// are cached for a year; index.html is read afresh each time.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  base: '/console/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
  },
});
