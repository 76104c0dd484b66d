// Pylon's published per-minute limits, per endpoint (from the operation descriptions of its API reference).
// One table, two users: the tools' client-side limiter keeps under it, and the emulator enforces it when its
// rate limits are switched on.

/** Keys are `METHOD /path` with `{param}` placeholders, as the tools write paths. */
export const PYLON_RATE_LIMITS_PER_MINUTE: Readonly<Record<string, number>> = {
  'GET /me': 60,
  'GET /issues': 10,
  'GET /issues/{id}': 60,
  'PATCH /issues/{id}': 20,
  'POST /issues/{id}/note': 10,
  'GET /issues/{id}/messages': 20,
  'GET /issue-statuses': 10,
  'GET /contacts': 60,
  'GET /contacts/{id}': 60,
  'POST /contacts/search': 20,
  'GET /users': 60,
  'GET /users/{id}': 60,
  'GET /teams': 60,
  'GET /teams/{id}': 60,
};
