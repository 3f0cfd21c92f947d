/** Style sheets imported by main.ts: esbuild bundles them into explore.css; the import itself has no value. */
declare module '*.css';
