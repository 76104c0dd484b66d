// Secret handling: every credential value the process knows is registered here, and every string that leaves
// the process (logs, error texts, tool results) passes through `redact` first.

const registered = new Set<string>();
/** Short-lived secrets (per-user tokens, one-time codes), most recent last; only the newest are kept. */
const transient = new Set<string>();
/**
 * How many short-lived secrets are remembered. Per-user OAuth tokens rotate about hourly for every person, so an
 * unbounded set would grow for as long as the server runs and slow every `redact`; a token that has dropped out
 * was rotated away long ago.
 */
export const TRANSIENT_SECRETS_KEPT = 4096;
/** The shortest secret kept (see registerSecret), and so the window the matcher hashes. */
const MIN_SECRET_LENGTH = 6;
/** Up to this many patterns, one `includes` each beats hashing every position of the text. */
const SCAN_ABOVE = 32;

/**
 * Finds which of a set of strings occur in a text. With few, one `includes` per string; with many (per-user
 * sign-in keeps thousands of tokens), one pass over the text with a rolling hash of its first six characters
 * (Rabin-Karp), so a check costs the text's length, not the text's length times the number of secrets.
 */
class Patterns {
  readonly #all = new Map<string, number>(); // pattern -> how many registrations hold it
  readonly #byHash = new Map<number, string[]>();

  get size(): number {
    return this.#all.size;
  }

  add(pattern: string): void {
    const held = this.#all.get(pattern) ?? 0;
    this.#all.set(pattern, held + 1);
    if (held > 0) return;
    const hash = windowHash(pattern, 0);
    const bucket = this.#byHash.get(hash);
    if (bucket) bucket.push(pattern);
    else this.#byHash.set(hash, [pattern]);
  }

  delete(pattern: string): void {
    const held = this.#all.get(pattern);
    if (held === undefined) return;
    if (held > 1) {
      this.#all.set(pattern, held - 1);
      return;
    }
    this.#all.delete(pattern);
    const hash = windowHash(pattern, 0);
    const rest = (this.#byHash.get(hash) ?? []).filter((other) => other !== pattern);
    if (rest.length > 0) this.#byHash.set(hash, rest);
    else this.#byHash.delete(hash);
  }

  /** Calls `found` once per pattern the text holds, until it returns true. */
  find(text: string, found: (pattern: string) => boolean | undefined): void {
    if (this.#all.size === 0 || text.length < MIN_SECRET_LENGTH) return;
    if (this.#all.size <= SCAN_ABOVE) {
      for (const pattern of this.#all.keys()) if (text.includes(pattern) && found(pattern)) return;
      return;
    }
    const seen = new Set<string>();
    let hash = windowHash(text, 0);
    for (let i = 0; ; i++) {
      const bucket = this.#byHash.get(hash);
      if (bucket) {
        for (const pattern of bucket) {
          if (!seen.has(pattern) && text.startsWith(pattern, i)) {
            seen.add(pattern);
            if (found(pattern)) return;
          }
        }
      }
      if (i + MIN_SECRET_LENGTH >= text.length) return;
      hash = rollHash(hash, text.charCodeAt(i), text.charCodeAt(i + MIN_SECRET_LENGTH));
    }
  }
}

const BASE = 257;
/** BASE to the power MIN_SECRET_LENGTH - 1, in 32 bits: what the character leaving the window weighed. */
const LEAVING = Array.from({ length: MIN_SECRET_LENGTH - 1 }).reduce<number>((p) => Math.imul(p, BASE), 1);

function windowHash(text: string, from: number): number {
  let hash = 0;
  for (let i = from; i < from + MIN_SECRET_LENGTH; i++)
    hash = (Math.imul(hash, BASE) + text.charCodeAt(i)) | 0;
  return hash;
}

function rollHash(hash: number, leaving: number, entering: number): number {
  return (Math.imul(hash - Math.imul(leaving, LEAVING), BASE) + entering) | 0;
}

/** Every secret kept, registered or short-lived. */
const secrets = new Patterns();
/** The secrets JSON writes differently (a quote, a backslash, a control character), as JSON writes them. */
const escapedInJson = new Patterns();

function keep(secret: string): void {
  secrets.add(secret);
  const escaped = escapedForm(secret);
  if (escaped !== secret) escapedInJson.add(escaped);
}

function forget(secret: string): void {
  secrets.delete(secret);
  const escaped = escapedForm(secret);
  if (escaped !== secret) escapedInJson.delete(escaped);
}

/** A string as JSON writes it inside quotes. */
function escapedForm(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

/** Remember a secret value so that it is masked wherever it might appear. Short values are ignored: masking
 * a 3-character string would garble ordinary text and protects nothing. */
export function registerSecret(value: string | undefined): void {
  if (!value || value.length < MIN_SECRET_LENGTH || registered.has(value)) return;
  registered.add(value);
  keep(value);
}

/** Like registerSecret, for values that expire (access and refresh tokens, codes): only the newest are kept. */
export function registerTransientSecret(value: string | undefined): void {
  if (!value || value.length < MIN_SECRET_LENGTH || registered.has(value)) return;
  if (transient.delete(value)) forget(value);
  transient.add(value);
  keep(value);
  while (transient.size > TRANSIENT_SECRETS_KEPT) {
    const oldest = transient.values().next().value;
    if (oldest === undefined) break;
    transient.delete(oldest);
    forget(oldest);
  }
}

export function redact(text: string): string {
  const found: string[] = [];
  secrets.find(text, (secret) => {
    found.push(secret);
    return undefined;
  });
  let out = text;
  // Longest first: a secret that contains another must not be half-masked, leaving its tail readable.
  found.sort((a, b) => b.length - a.length);
  for (const secret of found) out = out.split(secret).join('[redacted]');
  // Credentials can also travel in encoded forms (Basic auth, URL-encoded); mask the header shapes as well.
  return out.replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{6,}/g, '$1 [redacted]');
}

/** Deep-redacts a JSON-like value (strings anywhere inside). */
export function redactValue<T>(value: T): T {
  if (secrets.size === 0) return value;
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) return value.map((item) => redactValue(item)) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) out[key] = redactValue(inner);
    return out as T;
  }
  return value;
}

/**
 * Whether a JSON text may hold something `redactValue` would mask: a known secret, as it is or as JSON escapes it,
 * or a Bearer or Basic header shape (looser than redact's pattern: a false alarm only costs the deep walk). One
 * pass over the whole text, where redactValue tests every string in the value: a tool result is checked with this,
 * serialised as it is anyway, and walked only when it says so.
 */
export function jsonMayHoldSecret(json: string): boolean {
  if (json.includes('Bearer') || json.includes('Basic')) return true;
  let held = false;
  const stop = () => {
    held = true;
    return true;
  };
  secrets.find(json, stop);
  if (!held) escapedInJson.find(json, stop);
  return held;
}
