// esbuild bundles a style sheet imported for its side effect into app.css (build.ts); it gives the script nothing.
declare module '*.css';
