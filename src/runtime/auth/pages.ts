// The two HTML pages the authorization server shows a person: the consent page (which MCP client asks to act as
// them, where it will be sent back, what the upstream will be asked for) and the error page for requests that
// cannot be answered by a redirect. Every value placed in a page is escaped; pages are never framed or cached.

import { escapeHtml, htmlDocument } from '../../text/html.js';

/** Headers for every page and redirect: no caching, no framing (clickjacking), no referrer, no sniffing. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Cache-Control': 'no-store',
  Pragma: 'no-cache',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  // No form-action: browsers apply it to the redirect after the form post too, and that goes to the upstream.
  'Content-Security-Policy':
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
};

const STYLE = `
body{font-family:system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1d1f25}
main{max-width:36rem;margin:3rem auto;padding:2rem;background:#fff;border-radius:8px;box-shadow:0 1px 4px #0002}
h1{font-size:1.35rem;margin-top:0}h2{font-size:1.05rem}
code{background:#eee;padding:0 .2rem;border-radius:3px;word-break:break-all}
ul{padding-left:1.2rem}li{margin:.25rem 0}.note{color:#555;font-size:.95rem}
.actions{display:flex;gap:1rem;margin-top:1.5rem}
button{font-size:1rem;padding:.5rem 1.4rem;border-radius:6px;border:1px solid #888;cursor:pointer;background:#fff}
#approve{background:#166ee1;color:#fff;border-color:#166ee1}
button:focus-visible{outline:3px solid #f5a623;outline-offset:2px}
`;

function page(title: string, body: string): string {
  return htmlDocument(title, body, STYLE);
}

export interface ConsentPageInput {
  action: string;
  handle: string;
  clientName: string;
  clientId: string;
  /** For a client known by its metadata document: the host serving it, the only party vouching for the name. */
  clientHost?: string;
  redirectUri: string;
  upstreamName: string;
  upstreamScopes: readonly string[];
}

export function consentPage(input: ConsentPageInput): string {
  const name = escapeHtml(input.clientName);
  const scopes = input.upstreamScopes
    .map((s) => `<li data-scope="${escapeHtml(s)}"><code>${escapeHtml(s)}</code></li>`)
    .join('\n');
  const body = `<h1 id="title">Connect <span id="client-name">${name}</span> to Switchboard</h1>
<p><strong>${name}</strong>${input.clientHost ? ` (described by <strong id="client-host">${escapeHtml(input.clientHost)}</strong>)` : ''} asks to use Switchboard's tools as you. Next you sign in to ${escapeHtml(input.upstreamName)},
and the tools then act with your own account there.</p>
<p>Afterwards you are sent back to <code id="redirect-uri">${escapeHtml(input.redirectUri)}</code>.</p>
<p class="note">Client id <code id="client-id">${escapeHtml(input.clientId)}</code>. Continue only if you started
this connection yourself, from an application you trust: it will be able to act as you.</p>
<h2 id="scopes-heading">${escapeHtml(input.upstreamName)} will be asked for</h2>
<ul id="scopes" aria-labelledby="scopes-heading">
${scopes}
</ul>
<form method="post" action="${escapeHtml(input.action)}" aria-labelledby="title">
<input type="hidden" name="consent" value="${escapeHtml(input.handle)}">
<div class="actions">
<button type="submit" id="approve" name="decision" value="approve">Continue</button>
<button type="submit" id="deny" name="decision" value="deny">Cancel</button>
</div>
</form>`;
  return page(`Connect ${input.clientName} to Switchboard`, body);
}

export function errorPage(message: string, details: [string, string][] = []): string {
  const rows = details
    .map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd><code>${escapeHtml(v)}</code></dd>`)
    .join('\n');
  return page(
    'Sign-in error',
    `<h1 id="title">Sign-in error</h1>
<p id="error" role="alert">${escapeHtml(message)}</p>
${rows ? `<dl>\n${rows}\n</dl>` : ''}
<p class="note">Nothing was sent back to the application. Start the connection again from your MCP client.</p>`,
  );
}
