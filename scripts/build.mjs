// `npm run build`: the `switchboard` command as one bundled program, dist/cli/main.js, with the code that only some
// commands need (emulators, the OAuth vault, the tokenizer) split into chunks loaded on first use. One file instead of
// about 900 modules is most of what makes a cold start fast: Node resolves, reads and compiles each module it loads.
// Type checking is `npm run typecheck` (tsc); esbuild only strips the types.
//
// Usage: node scripts/build.mjs [outdir] (default dist/cli). Chunks sit beside main.js, so src/runtime/version.ts
// finds package.json two folders up from any of them, as it does from src/runtime.

import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = process.argv[2] ?? `${root}dist/cli`;

// The default build owns all of dist/ (an older build's files must not linger beside the bundle).
rmSync(process.argv[2] ? outdir : `${root}dist`, { recursive: true, force: true });
const common = {
  absWorkingDir: root,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // A native module, and one loaded through createRequire (src/text/html.ts): both resolve from node_modules at
  // run time, as they must.
  external: ['better-sqlite3', 'html-to-text'],
  // CommonJS dependencies (commander, ...) call require() for Node's own modules; ESM has none, so each output
  // file gets one.
  banner: {
    js: "import { createRequire as __switchboardRequire } from 'node:module';\nconst require = __switchboardRequire(import.meta.url);",
  },
  // Node parses every byte of each file it loads before running it: minified, the files a start loads are a third
  // smaller and parse about as much faster (measured: about 40 ms of a 400 ms `serve store` start). The linked
  // source maps give stack traces their real names (node --enable-source-maps).
  minify: true,
  plugins: [onlyEnglishZodMessages()],
  logLevel: 'warning',
};

/**
 * zod re-exports all its 60-odd message translations (`z.locales`) as a namespace, so a bundle keeps every one:
 * half of zod's bytes, parsed at each start. Nothing here sets a locale (English, zod's default, is imported on
 * its own path), so the namespace is resolved to English alone.
 */
function onlyEnglishZodMessages() {
  return {
    name: 'only-english-zod-messages',
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
        /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer)
          ? { path: join(args.resolveDir, '../locales/en.js'), namespace: 'zod-english' }
          : undefined,
      );
      pluginBuild.onLoad({ filter: /.*/, namespace: 'zod-english' }, (args) => ({
        contents: `export { default as en } from ${JSON.stringify(args.path)};`,
        resolveDir: root,
      }));
    },
  };
}

await build({
  ...common,
  entryPoints: { main: 'src/cli/main.ts' },
  outdir,
  splitting: true,
  chunkNames: '[name]-[hash]',
  sourcemap: 'linked',
});

// The tools/list entries, made once here rather than at every start (src/docs/prebuiltToolList.ts). The generator is
// bundled into the output folder, so it resolves node_modules as the program does, then run and removed.
const generator = join(outdir, 'write-tool-list.mjs');
await build({
  ...common,
  stdin: {
    contents: `import { writePrebuiltToolList } from './src/docs/prebuiltToolList.ts';\nawait writePrebuiltToolList(${JSON.stringify(join(outdir, 'tool-list.json'))});`,
    resolveDir: root,
    loader: 'ts',
  },
  outfile: generator,
});
try {
  execFileSync(process.execPath, [generator], { stdio: 'inherit' });
} finally {
  rmSync(generator, { force: true });
}

// The sandbox console's page (src/console/web/build.ts) into dist/cli/console/, where the server reads it
// (src/console/web/assets.ts). Bundled and run like the tool list's generator; esbuild stays external, as the
// generator runs it and nothing ships it.
const consoleGenerator = join(outdir, 'write-console-page.mjs');
await build({
  ...common,
  external: [...common.external, 'esbuild'],
  stdin: {
    contents: `import { writeConsolePage } from './src/console/web/build.ts';\nawait writeConsolePage(${JSON.stringify(join(outdir, 'console'))}, ${JSON.stringify(join(root, 'src/console/web/page/main.tsx'))});`,
    resolveDir: root,
    loader: 'ts',
  },
  outfile: consoleGenerator,
});
try {
  execFileSync(process.execPath, [consoleGenerator], { stdio: 'inherit' });
} finally {
  rmSync(consoleGenerator, { force: true });
}
