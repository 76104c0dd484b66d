// Tool names in the style the client asked for. Texts the server writes (instructions, descriptions, error
// messages and hints) name tools the spec's way, `IssueDesk.SearchIssues`; with `--tool-names underscore` the
// client knows them only as `IssueDesk_SearchIssues`, so every known name is rewritten before it is sent.

export type ToolNameStyle = 'dotted' | 'underscore';

/** A spec name (`IssueDesk.SearchIssues`) as a client of `style` calls it. */
export function styledToolName(specName: string, style: ToolNameStyle): string {
  return style === 'dotted' ? specName : specName.replace('.', '_');
}

const unchanged = (text: string) => text;

/**
 * Rewrites the known spec names in a text into `style`. Only names in `specNames` change: other dotted words
 * (`example.com`, `IssueDesk.Nothing`, a version `0.1`) stay as they are.
 */
export function toolNameRewriter(
  specNames: Iterable<string>,
  style: ToolNameStyle,
): (text: string) => string {
  const known = new Set(specNames);
  if (style === 'dotted' || known.size === 0) return unchanged;
  const prefixes = new Set([...known].map((name) => name.slice(0, name.indexOf('.'))));
  const pattern = new RegExp(
    `\\b(?:${[...prefixes].map((prefix) => prefix.replace(/[^A-Za-z0-9]/g, '\\$&')).join('|')})\\.[A-Za-z0-9]+\\b`,
    'g',
  );
  return (text) => text.replace(pattern, (name) => (known.has(name) ? styledToolName(name, style) : name));
}
