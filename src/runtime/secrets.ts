// Secret handling: every credential value the process knows is registered here, and every string that leaves
// the process (logs, error texts, tool results) passes through `redact` first.

const registered = new Set<string>();

/** Remember a secret value so that it is masked wherever it might appear. Short values are ignored: masking
 * a 3-character string would garble ordinary text and protects nothing. */
export function registerSecret(value: string | undefined): void {
  if (value && value.length >= 6) registered.add(value);
}

export function redact(text: string): string {
  let out = text;
  for (const secret of registered) {
    if (out.includes(secret)) out = out.split(secret).join('[redacted]');
  }
  // Credentials can also travel in encoded forms (Basic auth, URL-encoded); mask the header shapes as well.
  return out.replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{6,}/g, '$1 [redacted]');
}

/** Deep-redacts a JSON-like value (strings anywhere inside). */
export function redactValue<T>(value: T): T {
  if (registered.size === 0) return value;
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) return value.map((item) => redactValue(item)) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) out[key] = redactValue(inner);
    return out as T;
  }
  return value;
}
