import { defineConfig } from 'vite';

/**
 * The dashboard is served by the gateway under /dashboard/ with a policy of `script-src 'self';
 * style-src 'self'` (docs/dashboard.md "Served"): nothing may be inlined in index.html, so the
 * module-preload polyfill (an inline script) is off and every asset is a file, hashed for caching.
 */
export default defineConfig({
  base: '/dashboard/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    assetsDir: 'assets',
    emptyOutDir: true,
    target: 'es2022',
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    cssCodeSplit: false,
    sourcemap: false,
    reportCompressedSize: true,
  },
});
