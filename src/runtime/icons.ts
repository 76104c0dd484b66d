// The icons clients show beside the server and its tools (MCP `icons` on Implementation and Tool): one small SVG
// of our own per service and one for Switchboard itself, drawn here and served as data: URIs, so that showing
// them never makes a client fetch anything over the network (nor tells a third party who is connected).
//
// Each icon draws its own coloured, rounded background with a white glyph, so one icon reads on light and dark
// themes alike and needs no `theme` variant: the 2026-07-28 revision stamps serverInfo, icons included, into
// every response's `_meta`, so every byte here is paid on every response. Models never see icons: clients send
// a tool's name, description and input schema to the model (runtime/tokens.ts counts exactly those).

import type { Icon } from '@modelcontextprotocol/server';

/** An icon's SVG source: a 24x24 rounded square of `background` under a white `glyph` (SVG elements). */
function badge(background: string, glyph: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><rect width="24" height="24" rx="5" fill="${background}"/>${glyph}</svg>`;
}

const STROKE = 'fill="none" stroke="#fff" stroke-width="2" stroke-linejoin="round"';

/** The SVG sources, by service prefix, and Switchboard's own under SWITCHBOARD. */
export const ICON_SVGS = {
  // A support ticket: a card notched on both sides.
  IssueDesk: badge('#0f766e', '<path d="M4 7h16v3a2 2 0 0 0 0 4v3H4v-3a2 2 0 0 0 0-4z" fill="#fff"/>'),
  // An envelope.
  MessagingTrackApi: badge('#4338ca', `<path d="M4 7h16v10H4zm0 0 8 6 8-6" ${STROKE}/>`),
  // A table: a header row over a grid.
  StoreApi: badge('#b45309', `<path d="M4 6h16v12H4zm0 4h16M4 14h16M10 6v12" ${STROKE}/>`),
  // Patch cords between jacks, as on a telephone switchboard.
  Switchboard: badge(
    '#334155',
    `<path d="M7 7c0 6 10 4 10 10M17 7c0 5-10 5-10 10" ${STROKE}/><circle cx="7" cy="7" r="2" fill="#fff"/><circle cx="17" cy="7" r="2" fill="#fff"/><circle cx="7" cy="17" r="2" fill="#fff"/><circle cx="17" cy="17" r="2" fill="#fff"/>`,
  ),
} as const;

export const SWITCHBOARD = 'Switchboard';

const SVG_MIME_TYPE = 'image/svg+xml';

/** An SVG as an MCP icon: a base64 data: URI, scalable, so `sizes` is `any`. */
function svgIcon(svg: string): Icon {
  return {
    src: `data:${SVG_MIME_TYPE};base64,${Buffer.from(svg, 'utf8').toString('base64')}`,
    mimeType: SVG_MIME_TYPE,
    sizes: ['any'],
  };
}

/** The icons, encoded once: every tools/list entry of a service shares its array. */
const ICONS = new Map<string, readonly Icon[]>(
  Object.entries(ICON_SVGS).map(([key, svg]) => [key, Object.freeze([svgIcon(svg)])]),
);

/** The icons of the service with tool-name prefix `prefix` (`IssueDesk`), or undefined for one without. */
export function serviceIcons(prefix: string): readonly Icon[] | undefined {
  return prefix === SWITCHBOARD ? undefined : ICONS.get(prefix);
}

/** Switchboard's own icons: the server's when it serves several services (`serve all`) or the discovery view. */
export function switchboardIcons(): readonly Icon[] {
  return ICONS.get(SWITCHBOARD)!;
}
