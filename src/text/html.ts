// Converts between the HTML bodies the issue desk stores and the plain text that tool callers
// (language models) read and write. Plain text out: no wrapping, links kept as "text (url)", images
// dropped, lists as "- item". HTML in: escaped text in <p> paragraphs with <br> line breaks.

import { createRequire } from 'node:module';
import type { compile as Compile } from 'html-to-text';

const HEADINGS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'];

// Compiling builds html-to-text's selector decision tree, which costs far more than converting a
// typical message body, so it is done once per process; and lazily, with a synchronous require of the
// package's CommonJS build, because loading it costs ~70 ms of a server's cold start that most sessions never
// need.
let converter: ReturnType<typeof Compile> | undefined;
function convert(html: string): string {
  converter ??= buildConverter();
  return converter(html);
}

function buildConverter(): ReturnType<typeof Compile> {
  const { compile } = createRequire(import.meta.url)('html-to-text') as { compile: typeof Compile };
  return compile({
    wordwrap: false,
    selectors: [
      {
        selector: 'a',
        options: { linkBrackets: ['(', ')'], hideLinkHrefIfSameAsText: true, noAnchorUrl: true },
      },
      { selector: 'img', format: 'skip' },
      // A body pasted from a full page must not leak its <title>, which html-to-text keeps by default.
      // Scripts and styles are skipped by default already; listed so that does not hang on a default.
      { selector: 'head', format: 'skip' },
      { selector: 'script', format: 'skip' },
      { selector: 'style', format: 'skip' },
      { selector: 'template', format: 'skip' },
      { selector: 'ul', options: { itemPrefix: '- ' } },
      // The default layout runs the cells of a non-data table together ("ab" for <td>a</td><td>b</td>).
      {
        selector: 'table',
        format: 'dataTable',
        options: { maxColumnWidth: Number.MAX_SAFE_INTEGER, uppercaseHeaderCells: false },
      },
      { selector: 'hr', options: { length: 3 } },
      ...HEADINGS.map((selector) => ({ selector, options: { uppercase: false } })),
    ],
  });
}

const NBSP = /\u00a0/g;
const TRAILING_SPACES = /[ \t]+$/gm;
const BLANK_LINE_RUNS = /\n{3,}/g;

export function htmlToPlainText(html: string): string {
  if (html.trim() === '') return '';
  return (
    convert(html)
      // &nbsp; is how editors keep runs of spaces; in plain text it is just a space.
      .replace(NBSP, ' ')
      .replace(TRAILING_SPACES, '')
      .replace(BLANK_LINE_RUNS, '\n\n')
      .trim()
  );
}

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text and attribute values alike: everything placed in HTML goes through this. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ESCAPES[ch] ?? ch);
}

/** A small standalone page (consent and result pages): the title is escaped, `body` must already be safe HTML. */
export function htmlDocument(title: string, body: string, style: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${style}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

// HTML collapses runs of spaces and drops a space at the start of a line; writing every space
// but the last of a run (and a line-leading one) as &nbsp; keeps the text's spacing, which
// htmlToPlainText turns back into plain spaces.
function keepSpaces(line: string): string {
  return line.replace(/ {2,}/g, (run) => `${'&nbsp;'.repeat(run.length - 1)} `).replace(/^ /, '&nbsp;');
}

export function plainTextToHtml(text: string): string {
  const paragraphs = text
    .replace(/\r\n?/g, '\n')
    .split(/\n(?:[ \t]*\n)+/)
    .map((paragraph) => paragraph.replace(/^\n+|\n+$/g, ''))
    .filter((paragraph) => paragraph.trim() !== '');
  return paragraphs
    .map((paragraph) => `<p>${paragraph.split('\n').map(escapeHtml).map(keepSpaces).join('<br>')}</p>`)
    .join('');
}

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
};

/**
 * Plain words of an HTML body for keyword ranking. Far cheaper than htmlToPlainText (no layout), which
 * matters when one search ranks 10,000 issue bodies; the words are the same, only line breaks are lost.
 */
export function htmlToSearchText(html: string): string {
  return html
    .replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (match, entity: string) => {
      if (entity[0] === '#') {
        const code =
          entity[1] === 'x' || entity[1] === 'X'
            ? Number.parseInt(entity.slice(2), 16)
            : Number(entity.slice(1));
        return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : ' ';
      }
      return NAMED_ENTITIES[entity.toLowerCase()] ?? match;
    });
}
