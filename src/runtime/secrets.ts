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

/** Remember a secret value so that it is masked wherever it might appear. Short values are ignored: masking
 * a 3-character string would garble ordinary text and protects nothing. */
export function registerSecret(value: string | undefined): void {
  if (value && value.length >= 6) {
    registered.add(value);
    noteEscaped(value);
  }
}

/** Secrets that JSON writes differently (a quote, a backslash, a control character), with how it writes them. */
const escapedInJson = new Map<string, string>();
function noteEscaped(secret: string): void {
  const escaped = JSON.stringify(secret).slice(1, -1);
  if (escaped !== secret) escapedInJson.set(secret, escaped);
}

/** Like registerSecret, for values that expire (access and refresh tokens, codes): only the newest are kept. */
export function registerTransientSecret(value: string | undefined): void {
  if (!value || value.length < 6 || registered.has(value)) return;
  transient.delete(value);
  transient.add(value);
  noteEscaped(value);
  while (transient.size > TRANSIENT_SECRETS_KEPT) {
    const oldest = transient.values().next().value;
    if (oldest === undefined) break;
    transient.delete(oldest);
    if (!registered.has(oldest)) escapedInJson.delete(oldest);
  }
}

export function redact(text: string): string {
  let out = text;
  const found: string[] = [];
  for (const set of [registered, transient]) {
    for (const secret of set) if (text.includes(secret)) found.push(secret);
  }
  // Longest first: a secret that contains another must not be half-masked, leaving its tail readable.
  found.sort((a, b) => b.length - a.length);
  for (const secret of found) out = out.split(secret).join('[redacted]');
  // Credentials can also travel in encoded forms (Basic auth, URL-encoded); mask the header shapes as well.
  return out.replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{6,}/g, '$1 [redacted]');
}

/** Deep-redacts a JSON-like value (strings anywhere inside). */
export function redactValue<T>(value: T): T {
  if (registered.size === 0 && transient.size === 0) return value;
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
  for (const set of [registered, transient]) {
    for (const secret of set) if (json.includes(secret)) return true;
  }
  for (const escaped of escapedInJson.values()) if (json.includes(escaped)) return true;
  return false;
}
