// A reader for the part of YAML that deploy/compose.yaml is written in, so a test can hold it against
// deploy/haproxy.cfg and the Dockerfile: block mappings and sequences by indentation, plain, "double" and 'single'
// quoted scalars, one-line [flow, sequences], comments, and anchors (&name) with aliases (*name). Every scalar stays
// a string. Anything else (block scalars, flow mappings, merge keys, multi-document files) is refused with its line,
// never guessed at: the compose file stays within this subset, or this reader grows with it. (No YAML library is
// among the project's dependencies; a well-kept one such as `yaml` would replace this file.)

export type YamlValue = string | null | YamlValue[] | { [key: string]: YamlValue };

interface Line {
  number: number;
  indent: number;
  text: string;
}

/** The line without a comment: a `#` at its start or after a space, outside quotes. */
function stripComment(raw: string): string {
  let quote: string | undefined;
  for (let i = 0; i < raw.length; i++) {
    const char = raw[i]!;
    if (quote) {
      if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'") {
      quote = char;
    } else if (char === '#' && (i === 0 || /\s/.test(raw[i - 1]!))) {
      return raw.slice(0, i);
    }
  }
  return raw;
}

function splitFlow(inner: string, line: Line): string[] {
  const items: string[] = [];
  let quote: string | undefined;
  let current = '';
  for (const char of inner) {
    if (quote) {
      if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'") {
      quote = char;
    } else if (char === ',') {
      items.push(current.trim());
      current = '';
      continue;
    } else if ('[]{}'.includes(char)) {
      throw new Error(`line ${line.number}: nested flow collections are outside the YAML this reader knows`);
    }
    current += char;
  }
  if (current.trim() !== '') items.push(current.trim());
  return items;
}

export function parseYamlSubset(text: string): YamlValue {
  const lines: Line[] = [];
  text.split('\n').forEach((raw, index) => {
    const stripped = stripComment(raw).replace(/\s+$/, '');
    if (stripped.trim() === '') return;
    if (stripped.includes('\t')) throw new Error(`line ${index + 1}: tabs are not YAML indentation`);
    lines.push({
      number: index + 1,
      indent: stripped.length - stripped.trimStart().length,
      text: stripped.trim(),
    });
  });
  const anchors = new Map<string, YamlValue>();
  let at = 0;

  const scalar = (raw: string, line: Line): YamlValue => {
    if (raw.startsWith('*')) {
      const name = raw.slice(1);
      if (!anchors.has(name)) throw new Error(`line ${line.number}: alias *${name} names no anchor above it`);
      return anchors.get(name)!;
    }
    if (raw.startsWith('"')) return JSON.parse(raw) as string;
    if (raw.startsWith("'")) {
      if (!raw.endsWith("'") || raw.length < 2) throw new Error(`line ${line.number}: unterminated quote`);
      return raw.slice(1, -1).replaceAll("''", "'");
    }
    if (raw.startsWith('[')) {
      if (!raw.endsWith(']')) throw new Error(`line ${line.number}: a flow sequence must end on its line`);
      return splitFlow(raw.slice(1, -1), line).map((item) => scalar(item, line));
    }
    if (/^[{|>&!%@`]/.test(raw) || raw === '<<') {
      throw new Error(`line ${line.number}: "${raw}" is outside the YAML this reader knows`);
    }
    return raw;
  };

  /** The value after `key:` or `-`: an anchor, an alias or scalar on the line, or the block below it. */
  const valueAfter = (rest: string, line: Line, indent: number): YamlValue => {
    let anchor: string | undefined;
    let value = rest;
    const anchored = /^&([\w-]+)\s*(.*)$/.exec(rest);
    if (anchored) {
      anchor = anchored[1]!;
      value = anchored[2]!;
    }
    let result: YamlValue;
    if (value !== '') result = scalar(value, line);
    else if (at < lines.length && lines[at]!.indent > indent) result = block(lines[at]!.indent);
    // A sequence may sit at its key's indentation (`key:` then `- item` below it).
    else if (at < lines.length && lines[at]!.indent === indent && lines[at]!.text.startsWith('- '))
      result = block(indent);
    else result = null;
    if (anchor) anchors.set(anchor, result);
    return result;
  };

  const block = (indent: number): YamlValue => {
    const first = lines[at]!;
    if (first.text === '-' || first.text.startsWith('- ')) {
      const items: YamlValue[] = [];
      while (at < lines.length && lines[at]!.indent === indent && lines[at]!.text.startsWith('-')) {
        const line = lines[at++]!;
        const rest = line.text.slice(1).trim();
        if (/^[^"'[\s][^:]*:(\s|$)/.test(rest)) {
          throw new Error(
            `line ${line.number}: mappings inside sequences are outside the YAML this reader knows`,
          );
        }
        items.push(valueAfter(rest, line, indent));
      }
      return items;
    }
    const map: { [key: string]: YamlValue } = {};
    while (at < lines.length && lines[at]!.indent === indent && !lines[at]!.text.startsWith('- ')) {
      const line = lines[at++]!;
      const match = /^([^\s"'#][^:]*?|"[^"]*"):(?:\s+(.*))?$/.exec(line.text);
      if (!match) throw new Error(`line ${line.number}: expected "key: value", found "${line.text}"`);
      const key = match[1]!.startsWith('"') ? (JSON.parse(match[1]!) as string) : match[1]!;
      if (key in map) throw new Error(`line ${line.number}: "${key}" appears twice`);
      map[key] = valueAfter(match[2] ?? '', line, indent);
    }
    if (at < lines.length && lines[at]!.indent > indent) {
      throw new Error(`line ${lines[at]!.number}: indented deeper than anything it could belong to`);
    }
    return map;
  };

  if (lines.length === 0) return null;
  const document = block(lines[0]!.indent);
  if (at < lines.length) throw new Error(`line ${lines[at]!.number}: unexpected indentation`);
  return document;
}
