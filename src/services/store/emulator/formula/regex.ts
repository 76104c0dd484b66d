// The regular expressions of REGEX_MATCH, REGEX_EXTRACT and REGEX_REPLACE. Airtable runs them on RE2,
// whose matching time is linear in the text whatever the pattern; JavaScript's backtracking RegExp is
// not (`.*x` over 100,000 characters takes seconds, `(a+)+$` never finishes), and a formula can come
// from any API caller. So patterns are parsed here, in RE2's syntax, and run by a Pike VM: a breadth-
// first simulation of the pattern's automaton that carries capture positions with each thread and keeps
// RE2's leftmost-first (Perl) match preference. Its cost is O(pattern size x text length), and a step
// budget stops the worst products of the two. What RE2 rejects (backreferences, lookaround) is an
// error here too.
//
// Why not the re2js package (a maintained pure-JS RE2 port): it is linear per search but has no step
// budget or way to stop, and a global replace can still be quadratic (`a*b|a` over a run of `a`s scans to
// the end for every match: 18 s for 16,000 characters, minutes for 100,000), which would block the
// emulator's only thread; the budget here turns that into a formula error in about a second.
//
// Supported: literals and escapes (\n \t \r \f \v \a \x41 \x{263A} \0oo \Q..\E, escaped punctuation),
// . [classes] [^negated] [a-z] [[:alpha:]] \d \w \s \D \W \S \pL \p{Greek} \PL, ^ $ \A \z \b \B,
// groups ( ) (?: ) (?P<name> ) (?<name> ), flags (?i) (?m) (?s) (?U) and (?i: ), alternation |,
// repetition * + ? {n} {n,} {n,m} (each also lazy with a trailing ?; counts up to 1000).

export class RegexError extends Error {}

/** Text longer than this is refused rather than scanned. */
export const MAX_REGEX_TEXT = 100_000;
const MAX_PATTERN = 10_000;
const MAX_PROGRAM = 50_000;
const MAX_REPEAT = 1000;
/** Thread steps allowed per function call: about a second of work at worst. */
const STEP_BUDGET = 30_000_000;

type CharTest = (cp: number) => boolean;
type AssertKind = 'bol' | 'eol' | 'bot' | 'eot' | 'word' | 'notword';

type Node =
  | { t: 'empty' }
  | { t: 'char'; test: CharTest }
  | { t: 'assert'; kind: AssertKind }
  | { t: 'cat'; items: Node[] }
  | { t: 'alt'; items: Node[] }
  | { t: 'capture'; index: number; body: Node }
  | { t: 'repeat'; body: Node; min: number; max: number; greedy: boolean };

type Inst =
  | { op: 'char'; test: CharTest }
  | { op: 'split'; x: number; y: number }
  | { op: 'jmp'; x: number }
  | { op: 'save'; slot: number }
  | { op: 'assert'; kind: AssertKind }
  | { op: 'match' };

export interface CompiledRegex {
  readonly program: readonly Inst[];
  /** Capture groups, group 0 (the whole match) included. */
  readonly groups: number;
}

interface Flags {
  i: boolean;
  m: boolean;
  s: boolean;
  U: boolean;
}

// --- Character tests -----------------------------------------------------------------------------------

const isDigit: CharTest = (c) => c >= 48 && c <= 57;
const isWordChar: CharTest = (c) => isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
const isSpace: CharTest = (c) => c === 32 || (c >= 9 && c <= 10) || c === 12 || c === 13;

const POSIX_CLASSES: Record<string, CharTest> = {
  alnum: (c) => isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122),
  alpha: (c) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122),
  ascii: (c) => c <= 0x7f,
  blank: (c) => c === 32 || c === 9,
  cntrl: (c) => c <= 0x1f || c === 0x7f,
  digit: isDigit,
  graph: (c) => c >= 0x21 && c <= 0x7e,
  lower: (c) => c >= 97 && c <= 122,
  print: (c) => c >= 0x20 && c <= 0x7e,
  punct: (c) =>
    (c >= 0x21 && c <= 0x2f) ||
    (c >= 0x3a && c <= 0x40) ||
    (c >= 0x5b && c <= 0x60) ||
    (c >= 0x7b && c <= 0x7e),
  space: (c) => isSpace(c) || c === 11,
  upper: (c) => c >= 65 && c <= 90,
  word: isWordChar,
  xdigit: (c) => isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102),
};

function not(test: CharTest): CharTest {
  return (c) => !test(c);
}

function unicodeProperty(name: string): CharTest {
  if (name === 'Any') return () => true;
  // A one-character native test is safe: it cannot backtrack.
  for (const source of [`^\\p{${name}}$`, `^\\p{Script=${name}}$`]) {
    try {
      const re = new RegExp(source, 'u');
      return (c) => re.test(String.fromCodePoint(c));
    } catch {
      // try the next spelling
    }
  }
  throw new RegexError(`invalid character class range: \\p{${name}}`);
}

function singleCodePoint(text: string, fallback: number): number {
  const cp = text.codePointAt(0);
  return cp !== undefined && text.length === String.fromCodePoint(cp).length ? cp : fallback;
}

function lowerOf(c: number): number {
  return singleCodePoint(String.fromCodePoint(c).toLowerCase(), c);
}

function upperOf(c: number): number {
  return singleCodePoint(String.fromCodePoint(c).toUpperCase(), c);
}

function caseless(test: CharTest): CharTest {
  return (c) => test(c) || test(lowerOf(c)) || test(upperOf(c));
}

function literal(cp: number, flags: Flags): CharTest {
  if (!flags.i) return (c) => c === cp;
  const lower = lowerOf(cp);
  const upper = upperOf(cp);
  return (c) => c === cp || c === lower || c === upper || lowerOf(c) === lower;
}

// --- Parser --------------------------------------------------------------------------------------------

class RegexParser {
  private pos = 0;
  groups = 1;
  private readonly chars: string[];

  constructor(pattern: string) {
    this.chars = Array.from(pattern);
  }

  parse(): Node {
    const node = this.parseAlternation({ i: false, m: false, s: false, U: false });
    if (this.pos < this.chars.length) throw new RegexError('unexpected )');
    return node;
  }

  private peek(offset = 0): string | undefined {
    return this.chars[this.pos + offset];
  }

  private lookingAt(text: string): boolean {
    for (let k = 0; k < text.length; k++) if (this.chars[this.pos + k] !== text[k]) return false;
    return true;
  }

  private parseAlternation(flags: Flags): Node {
    const items = [this.parseConcatenation(flags)];
    while (this.peek() === '|') {
      this.pos++;
      items.push(this.parseConcatenation(flags));
    }
    return items.length === 1 ? items[0]! : { t: 'alt', items };
  }

  private parseConcatenation(flags: Flags): Node {
    const items: Node[] = [];
    for (;;) {
      const c = this.peek();
      if (c === undefined || c === '|' || c === ')') break;
      const atom = this.parseAtom(flags);
      if (atom === null) continue;
      items.push(this.parseRepetitions(atom, flags));
    }
    if (items.length === 0) return { t: 'empty' };
    return items.length === 1 ? items[0]! : { t: 'cat', items };
  }

  private parseRepetitions(atom: Node, flags: Flags): Node {
    let node = atom;
    let repeated = false;
    for (;;) {
      const c = this.peek();
      let min: number;
      let max: number;
      if (c === '*' || c === '+' || c === '?') {
        this.pos++;
        min = c === '+' ? 1 : 0;
        max = c === '?' ? 1 : -1;
      } else if (c === '{') {
        const bounds = this.readBounds();
        if (!bounds) return node;
        [min, max] = bounds;
      } else {
        return node;
      }
      if (repeated) throw new RegexError('bad repetition operator');
      repeated = true;
      let greedy = !flags.U;
      if (this.peek() === '?') {
        this.pos++;
        greedy = !greedy;
      }
      node = { t: 'repeat', body: node, min, max, greedy };
    }
  }

  /** `{n}`, `{n,}` or `{n,m}` at the cursor; anything else leaves `{` a literal, as in RE2. */
  private readBounds(): [number, number] | null {
    const rest = this.chars.slice(this.pos, this.pos + 24).join('');
    const m = /^\{(\d+)(,(\d*))?\}/.exec(rest);
    if (!m) return null;
    const min = Number(m[1]);
    const max = m[2] === undefined ? min : m[3] === '' ? -1 : Number(m[3]);
    if (min > MAX_REPEAT || max > MAX_REPEAT || (max !== -1 && max < min)) {
      throw new RegexError(`bad repetition operator: ${m[0]}`);
    }
    this.pos += m[0].length;
    return [min, max];
  }

  /** One atom, or null for a flag group like (?i) that only changes the flags. */
  private parseAtom(flags: Flags): Node | null {
    const c = this.chars[this.pos++]!;
    switch (c) {
      case '(':
        return this.parseGroup(flags);
      case '[':
        return { t: 'char', test: this.parseClass(flags) };
      case '.':
        return { t: 'char', test: flags.s ? () => true : (x) => x !== 10 };
      case '^':
        return { t: 'assert', kind: flags.m ? 'bol' : 'bot' };
      case '$':
        return { t: 'assert', kind: flags.m ? 'eol' : 'eot' };
      case '\\':
        return this.parseEscape(flags);
      case '*':
      case '+':
      case '?':
        throw new RegexError(`missing argument to repetition operator: ${c}`);
      default:
        return { t: 'char', test: literal(c.codePointAt(0)!, flags) };
    }
  }

  private parseGroup(flags: Flags): Node | null {
    if (this.peek() !== '?') return this.captureGroup(flags);
    this.pos++;
    if (this.lookingAt('P<') || (this.peek() === '<' && this.peek(1) !== '=' && this.peek(1) !== '!')) {
      this.pos += this.peek() === 'P' ? 2 : 1;
      let name = '';
      while (this.peek() !== undefined && this.peek() !== '>') name += this.chars[this.pos++];
      if (this.peek() !== '>' || !/^\w+$/.test(name))
        throw new RegexError(`invalid named capture group: ${name}`);
      this.pos++;
      return this.captureGroup(flags);
    }
    if (this.peek() === '=' || this.peek() === '!' || this.lookingAt('<=') || this.lookingAt('<!')) {
      throw new RegexError('lookahead and lookbehind are not supported (RE2 syntax)');
    }
    const scoped = { ...flags };
    let negate = false;
    for (;;) {
      const c = this.chars[this.pos++];
      if (c === undefined) throw new RegexError('missing closing )');
      if (c === 'i' || c === 'm' || c === 's' || c === 'U') scoped[c] = !negate;
      else if (c === '-' && !negate) negate = true;
      else if (c === ')') {
        // (?i) changes the flags of the rest of the enclosing group.
        Object.assign(flags, scoped);
        return null;
      } else if (c === ':') {
        const body = this.parseAlternation(scoped);
        this.closeGroup();
        return body;
      } else throw new RegexError(`invalid or unsupported Perl syntax: (?${c}`);
    }
  }

  private captureGroup(flags: Flags): Node {
    const index = this.groups++;
    const body = this.parseAlternation({ ...flags });
    this.closeGroup();
    return { t: 'capture', index, body };
  }

  private closeGroup(): void {
    if (this.peek() !== ')') throw new RegexError('missing closing )');
    this.pos++;
  }

  private parseEscape(flags: Flags): Node {
    const c = this.chars[this.pos++];
    if (c === undefined) throw new RegexError('trailing \\');
    switch (c) {
      case 'd':
        return { t: 'char', test: isDigit };
      case 'D':
        return { t: 'char', test: not(isDigit) };
      case 'w':
        return { t: 'char', test: isWordChar };
      case 'W':
        return { t: 'char', test: not(isWordChar) };
      case 's':
        return { t: 'char', test: isSpace };
      case 'S':
        return { t: 'char', test: not(isSpace) };
      case 'p':
      case 'P': {
        const test = this.readProperty();
        return { t: 'char', test: c === 'P' ? not(test) : flags.i ? caseless(test) : test };
      }
      case 'b':
        return { t: 'assert', kind: 'word' };
      case 'B':
        return { t: 'assert', kind: 'notword' };
      case 'A':
        return { t: 'assert', kind: 'bot' };
      case 'z':
        return { t: 'assert', kind: 'eot' };
      case 'Q': {
        const items: Node[] = [];
        while (this.pos < this.chars.length && !this.lookingAt('\\E')) {
          items.push({ t: 'char', test: literal(this.chars[this.pos++]!.codePointAt(0)!, flags) });
        }
        if (this.lookingAt('\\E')) this.pos += 2;
        return { t: 'cat', items };
      }
      default:
        return { t: 'char', test: literal(this.escapedCodePoint(c), flags) };
    }
  }

  /** The code point of a character escape (after the backslash), in or outside a class. */
  private escapedCodePoint(c: string): number {
    const simple: Record<string, number> = { n: 10, t: 9, r: 13, f: 12, v: 11, a: 7 };
    if (simple[c] !== undefined) return simple[c];
    if (c === 'x') {
      if (this.peek() === '{') {
        const close = this.chars.indexOf('}', this.pos);
        const hex = close === -1 ? '' : this.chars.slice(this.pos + 1, close).join('');
        if (!/^[0-9a-fA-F]{1,6}$/.test(hex) || Number.parseInt(hex, 16) > 0x10ffff) {
          throw new RegexError('invalid escape sequence: \\x');
        }
        this.pos = close + 1;
        return Number.parseInt(hex, 16);
      }
      const hex = this.chars.slice(this.pos, this.pos + 2).join('');
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) throw new RegexError('invalid escape sequence: \\x');
      this.pos += 2;
      return Number.parseInt(hex, 16);
    }
    if (c === '0') {
      let digits = '';
      while (digits.length < 2 && /[0-7]/.test(this.peek() ?? '')) digits += this.chars[this.pos++];
      return Number.parseInt(digits || '0', 8);
    }
    if (/[1-9]/.test(c)) throw new RegexError(`backreferences are not supported (RE2 syntax): \\${c}`);
    if (/[\p{L}\p{N}_]/u.test(c)) throw new RegexError(`invalid escape sequence: \\${c}`);
    return c.codePointAt(0)!;
  }

  private readProperty(): CharTest {
    if (this.peek() === '{') {
      const close = this.chars.indexOf('}', this.pos);
      if (close === -1) throw new RegexError('invalid character class range: missing }');
      const name = this.chars.slice(this.pos + 1, close).join('');
      this.pos = close + 1;
      if (name.startsWith('^')) return not(unicodeProperty(name.slice(1)));
      return unicodeProperty(name);
    }
    const name = this.chars[this.pos++];
    if (name === undefined) throw new RegexError('invalid character class range: \\p');
    return unicodeProperty(name);
  }

  private parseClass(flags: Flags): CharTest {
    let negated = false;
    if (this.peek() === '^') {
      negated = true;
      this.pos++;
    }
    const tests: CharTest[] = [];
    const ranges: [number, number][] = [];
    let first = true;
    for (;;) {
      const c = this.peek();
      if (c === undefined) throw new RegexError('missing closing ]');
      if (c === ']' && !first) {
        this.pos++;
        break;
      }
      first = false;
      if (this.lookingAt('[:')) {
        const close = this.chars.indexOf(']', this.pos + 2);
        const body = close === -1 ? '' : this.chars.slice(this.pos + 2, close).join('');
        const m = /^(\^?)([a-z]+):$/.exec(body);
        const test = m ? POSIX_CLASSES[m[2]!] : undefined;
        if (m && test) {
          tests.push(m[1] ? not(test) : test);
          this.pos = close + 1;
          continue;
        }
      }
      const lo = this.classAtom(tests);
      if (lo === null) continue;
      if (this.peek() === '-' && this.peek(1) !== ']' && this.peek(1) !== undefined) {
        this.pos++;
        const hi = this.classAtom(tests);
        if (hi === null || hi < lo) throw new RegexError('invalid character class range');
        ranges.push([lo, hi]);
      } else {
        ranges.push([lo, lo]);
      }
    }
    let test: CharTest = (c) => {
      for (const [lo, hi] of ranges) if (c >= lo && c <= hi) return true;
      for (const t of tests) if (t(c)) return true;
      return false;
    };
    if (flags.i) test = caseless(test);
    return negated ? not(test) : test;
  }

  /** A single character of a class, or null when it was a class escape (\d, \pL...) added to `tests`. */
  private classAtom(tests: CharTest[]): number | null {
    const c = this.chars[this.pos++]!;
    if (c !== '\\') return c.codePointAt(0)!;
    const e = this.chars[this.pos++];
    if (e === undefined) throw new RegexError('missing closing ]');
    const classes: Record<string, CharTest> = {
      d: isDigit,
      D: not(isDigit),
      w: isWordChar,
      W: not(isWordChar),
      s: isSpace,
      S: not(isSpace),
    };
    const known = classes[e];
    if (known) {
      tests.push(known);
      return null;
    }
    if (e === 'p' || e === 'P') {
      const property = this.readProperty();
      tests.push(e === 'P' ? not(property) : property);
      return null;
    }
    return this.escapedCodePoint(e);
  }
}

// --- Compiler ------------------------------------------------------------------------------------------

type SplitInst = { op: 'split'; x: number; y: number };

class Compiler {
  readonly program: Inst[] = [];

  private emit<T extends Inst>(inst: T): T {
    if (this.program.length >= MAX_PROGRAM) throw new RegexError('pattern too large - compile failed');
    this.program.push(inst);
    return inst;
  }

  private get here(): number {
    return this.program.length;
  }

  /** A split whose preferred branch is `stay` when greedy, `leave` when lazy; targets are set later. */
  private setBranch(split: SplitInst, greedy: boolean, stay: number, leave: number): void {
    split.x = greedy ? stay : leave;
    split.y = greedy ? leave : stay;
  }

  compile(node: Node): void {
    switch (node.t) {
      case 'empty':
        return;
      case 'char':
        this.emit({ op: 'char', test: node.test });
        return;
      case 'assert':
        this.emit({ op: 'assert', kind: node.kind });
        return;
      case 'cat':
        for (const item of node.items) this.compile(item);
        return;
      case 'alt': {
        const exits: { op: 'jmp'; x: number }[] = [];
        node.items.forEach((item, k) => {
          if (k === node.items.length - 1) {
            this.compile(item);
            return;
          }
          const split = this.emit<SplitInst>({ op: 'split', x: this.here + 1, y: 0 });
          this.compile(item);
          exits.push(this.emit({ op: 'jmp', x: 0 }));
          split.y = this.here;
        });
        for (const exit of exits) exit.x = this.here;
        return;
      }
      case 'capture':
        this.emit({ op: 'save', slot: node.index * 2 });
        this.compile(node.body);
        this.emit({ op: 'save', slot: node.index * 2 + 1 });
        return;
      case 'repeat':
        this.compileRepeat(node.body, node.min, node.max, node.greedy);
        return;
    }
  }

  private compileRepeat(body: Node, min: number, max: number, greedy: boolean): void {
    if (max === -1) {
      for (let k = 1; k < min; k++) this.compile(body);
      if (min > 0) {
        // x+ : x, then back to it while preferred.
        const start = this.here;
        this.compile(body);
        const split = this.emit<SplitInst>({ op: 'split', x: 0, y: 0 });
        this.setBranch(split, greedy, start, this.here);
      } else {
        // x* : into x (and back here after it) or past it.
        const start = this.here;
        const split = this.emit<SplitInst>({ op: 'split', x: 0, y: 0 });
        this.compile(body);
        this.emit({ op: 'jmp', x: start });
        this.setBranch(split, greedy, start + 1, this.here);
      }
      return;
    }
    for (let k = 0; k < min; k++) this.compile(body);
    // The max - min optional copies nest, (x(x)?)?, so all of them leave to one end.
    const splits: SplitInst[] = [];
    for (let k = min; k < max; k++) {
      const split = this.emit<SplitInst>({ op: 'split', x: 0, y: 0 });
      split.x = this.here;
      splits.push(split);
      this.compile(body);
    }
    for (const split of splits) this.setBranch(split, greedy, split.x, this.here);
  }
}

const cache = new Map<string, CompiledRegex | RegexError>();

/** Compiles an RE2-syntax pattern; throws RegexError when it is invalid or unsupported. */
export function compileRegex(pattern: string): CompiledRegex {
  const cached = cache.get(pattern);
  if (cached instanceof RegexError) throw cached;
  if (cached) return cached;
  let result: CompiledRegex | RegexError;
  try {
    if (pattern.length > MAX_PATTERN) throw new RegexError('pattern too large - compile failed');
    const parser = new RegexParser(pattern);
    const tree = parser.parse();
    const compiler = new Compiler();
    compiler.compile({ t: 'capture', index: 0, body: tree });
    compiler.program.push({ op: 'match' });
    result = { program: compiler.program, groups: parser.groups };
  } catch (error) {
    if (!(error instanceof RegexError)) throw error;
    result = error;
  }
  if (cache.size > 200) cache.clear();
  cache.set(pattern, result);
  if (result instanceof RegexError) throw result;
  return result;
}

// --- Matching ------------------------------------------------------------------------------------------

interface Thread {
  pc: number;
  caps: number[];
}

/** Matches of one regex against one text, sharing the step budget across searches. */
export class RegexRunner {
  private readonly cps: number[] = [];
  /** UTF-16 offset of each code point, plus the length at the end. */
  private readonly offsets: number[] = [];
  private readonly marks: Int32Array;
  private generation = 0;
  private budget = STEP_BUDGET;

  constructor(
    private readonly re: CompiledRegex,
    private readonly text: string,
  ) {
    if (text.length > MAX_REGEX_TEXT) {
      throw new RegexError(`text longer than ${MAX_REGEX_TEXT} characters`);
    }
    let offset = 0;
    for (const ch of text) {
      this.cps.push(ch.codePointAt(0)!);
      this.offsets.push(offset);
      offset += ch.length;
    }
    this.offsets.push(offset);
    this.marks = new Int32Array(re.program.length);
  }

  get length(): number {
    return this.cps.length;
  }

  /** The UTF-16 slice between two code-point positions. */
  slice(from: number, to: number): string {
    return this.text.slice(this.offsets[from], this.offsets[to]);
  }

  /** Leftmost-first match starting at or after code point `start`: capture slots (code-point positions,
   * -1 when a group did not take part), or null. */
  search(start: number): number[] | null {
    const program = this.re.program;
    const n = this.cps.length;
    let current: Thread[] = [];
    let next: Thread[] = [];
    let currentGeneration = ++this.generation;
    let matched: number[] | null = null;
    for (let sp = start; ; sp++) {
      if (matched === null) {
        this.addThread(current, 0, new Array(this.re.groups * 2).fill(-1), sp, currentGeneration);
      }
      // Without threads, only a search that has already matched is over; otherwise the next start
      // position may still match.
      if (current.length === 0 && matched !== null) break;
      const nextGeneration = ++this.generation;
      const cp = sp < n ? this.cps[sp]! : -1;
      for (const thread of current) {
        const inst = program[thread.pc]!;
        if (inst.op === 'match') {
          matched = thread.caps;
          // Lower-priority threads can only give a less preferred match.
          break;
        }
        if (inst.op === 'char' && cp !== -1) {
          if (--this.budget < 0) throw new RegexError('regular expression too expensive for this text');
          if (inst.test(cp)) this.addThread(next, thread.pc + 1, thread.caps, sp + 1, nextGeneration);
        }
      }
      if (sp >= n) break;
      [current, next] = [next, current];
      next.length = 0;
      currentGeneration = nextGeneration;
    }
    return matched;
  }

  private addThread(list: Thread[], pc0: number, caps0: number[], sp: number, generation: number): void {
    const program = this.re.program;
    const stack: Thread[] = [{ pc: pc0, caps: caps0 }];
    while (stack.length > 0) {
      const { pc, caps } = stack.pop()!;
      if (this.marks[pc] === generation) continue;
      this.marks[pc] = generation;
      if (--this.budget < 0) throw new RegexError('regular expression too expensive for this text');
      const inst = program[pc]!;
      switch (inst.op) {
        case 'jmp':
          stack.push({ pc: inst.x, caps });
          break;
        case 'split':
          // Pushed in reverse so the preferred branch is explored first, as a recursive walk would.
          stack.push({ pc: inst.y, caps }, { pc: inst.x, caps });
          break;
        case 'save': {
          const copy = caps.slice();
          copy[inst.slot] = sp;
          stack.push({ pc: pc + 1, caps: copy });
          break;
        }
        case 'assert':
          if (this.assertion(inst.kind, sp)) stack.push({ pc: pc + 1, caps });
          break;
        default:
          list.push({ pc, caps });
      }
    }
  }

  private assertion(kind: AssertKind, sp: number): boolean {
    const n = this.cps.length;
    switch (kind) {
      case 'bot':
        return sp === 0;
      case 'eot':
        return sp === n;
      case 'bol':
        return sp === 0 || this.cps[sp - 1] === 10;
      case 'eol':
        return sp === n || this.cps[sp] === 10;
      case 'word':
      case 'notword': {
        const before = sp > 0 && isWordChar(this.cps[sp - 1]!);
        const after = sp < n && isWordChar(this.cps[sp]!);
        return (before !== after) === (kind === 'word');
      }
    }
  }
}

export function regexTest(re: CompiledRegex, text: string): boolean {
  return new RegexRunner(re, text).search(0) !== null;
}

/** The first match's text, or null when there is none. */
export function regexExtract(re: CompiledRegex, text: string): string | null {
  const runner = new RegexRunner(re, text);
  const caps = runner.search(0);
  return caps ? runner.slice(caps[0]!, caps[1]!) : null;
}

/** Replaces every match; `$1`..`$99` insert groups, `$&` and `$0` the match, `$$` a dollar sign. */
export function regexReplace(
  re: CompiledRegex,
  text: string,
  replacement: string,
  maxLength: number,
): string {
  const runner = new RegexRunner(re, text);
  let out = '';
  let last = 0;
  let pos = 0;
  while (pos <= runner.length) {
    const caps = runner.search(pos);
    if (!caps) break;
    const from = caps[0]!;
    const to = caps[1]!;
    out += runner.slice(last, from) + expandReplacement(replacement, caps, runner, re.groups);
    if (out.length > maxLength) throw new RegexError(`result longer than ${maxLength} characters`);
    if (to === from) {
      // An empty match: keep the next character and look again after it.
      if (from < runner.length) out += runner.slice(from, from + 1);
      last = from + 1;
      pos = from + 1;
    } else {
      last = to;
      pos = to;
    }
  }
  if (last < runner.length) out += runner.slice(last, runner.length);
  if (out.length > maxLength) throw new RegexError(`result longer than ${maxLength} characters`);
  return out;
}

function expandReplacement(replacement: string, caps: number[], runner: RegexRunner, groups: number): string {
  if (!replacement.includes('$')) return replacement;
  const group = (k: number): string => {
    const from = caps[k * 2]!;
    const to = caps[k * 2 + 1]!;
    return from < 0 || to < 0 ? '' : runner.slice(from, to);
  };
  return replacement.replace(/\$(\$|&|\d{1,2})/g, (whole, ref: string) => {
    if (ref === '$') return '$';
    if (ref === '&') return group(0);
    let k = Number(ref);
    // "$12" with one group is "$1" then "2".
    if (k >= groups && ref.length === 2) {
      const single = Number(ref[0]);
      if (single < groups) return group(single) + ref[1];
      k = single;
    }
    return k < groups ? group(k) : whole;
  });
}
