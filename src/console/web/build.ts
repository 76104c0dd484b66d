// The sandbox console's page, bundled by esbuild into three strings: the HTML shell, one script and one style
// sheet. scripts/build.mjs calls this at build time and writes the result into dist/cli/console/; run from source
// (tsx, tests), assets.ts calls it on the first request instead. Everything the page needs is in these three
// strings (Preact, json-editor, our CSS): nothing is fetched from the network at run time, no CDN, no web fonts.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONSOLE_FILES, type ConsolePage } from './assets.js';

/** Where the server serves the script and the style sheet (docs/console.md). */
export const CONSOLE_SCRIPT_PATH = '/console/app.js';
export const CONSOLE_STYLE_PATH = '/console/app.css';

const PAGE_ENTRY = fileURLToPath(new URL('./page/main.tsx', import.meta.url));

// `data:,` as the icon keeps the browser from asking the server for /favicon.ico.
const HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Switchboard sandbox console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${CONSOLE_STYLE_PATH}">
</head>
<body>
<div id="app"><p>Loading the console…</p></div>
<noscript><p>The sandbox console needs JavaScript.</p></noscript>
<script type="module" src="${CONSOLE_SCRIPT_PATH}"></script>
</body>
</html>
`;

/** `entry`: the page's main module; scripts/build.mjs names it, as this file then runs from a bundle elsewhere. */
export async function buildConsolePage(entry: string = PAGE_ENTRY): Promise<ConsolePage> {
  // Imported here, not at the top: esbuild is a devDependency, present whenever sources run but not in an
  // installed package, whose console comes prebuilt from dist/cli/console/.
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: { app: entry },
    bundle: true,
    write: false,
    outdir: 'console',
    format: 'esm',
    platform: 'browser',
    target: ['es2022'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
  });
  let js: string | undefined;
  let css: string | undefined;
  for (const file of result.outputFiles) {
    if (file.path.endsWith('.js')) js = file.text;
    else if (file.path.endsWith('.css')) css = file.text;
  }
  if (js === undefined || css === undefined) {
    throw new Error(
      `Bundling the console page (${entry}) gave no ${js === undefined ? 'script' : 'style sheet'}.`,
    );
  }
  return { html: HTML, js, css };
}

/** For scripts/build.mjs: the page's three files in `folder` (dist/cli/console). */
export async function writeConsolePage(folder: string, entry: string = PAGE_ENTRY): Promise<void> {
  const page = await buildConsolePage(entry);
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, CONSOLE_FILES.html), page.html);
  writeFileSync(join(folder, CONSOLE_FILES.js), page.js);
  writeFileSync(join(folder, CONSOLE_FILES.css), page.css);
}
