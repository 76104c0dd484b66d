// One in-process request to an emulator app (Hono's `app.request`), as the emulator unit tests send them: a JSON
// or raw body, an Authorization header of the caller's choosing, and the answer with its body parsed when it is
// JSON (kept as text otherwise).

// Loose JSON for assertions: tests read the fields they check.
// biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field, not typed.
export type Loose = any;

export interface Reply {
  status: number;
  body: Loose;
  text: string;
  headers: Headers;
}

export interface RequestOptions {
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

export async function requestApp(
  app: { request(path: string, init: RequestInit): Response | Promise<Response> },
  method: string,
  path: string,
  authorization: string | null,
  options: RequestOptions = {},
): Promise<Reply> {
  const headers: Record<string, string> = authorization === null ? {} : { authorization };
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await app.request(path, { method, headers: { ...headers, ...options.headers }, body });
  const text = await res.text();
  let parsed: unknown = null;
  if (text !== '') {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  return { status: res.status, body: parsed, text, headers: res.headers };
}
