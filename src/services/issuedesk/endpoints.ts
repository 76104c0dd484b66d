// Every Pylon API operation IssueDesk uses, once, keyed by the operationId of Pylon's OpenAPI document
// (reference/openapi/issuedesk-upstream.openapi.json), with the per-minute limit its description publishes.
// The tool rows and the upstream client (client.ts) call these; the emulator serves exactly these
// (emulator/routes/<area>.ts); the client-side and the emulator's rate-limit tables are derived from them.

import { defineOperations, type Operation } from '../../runtime/operation.js';

/** Pylon publishes every limit per minute. */
function perMinute(limit: number): NonNullable<Operation['rateLimit']> {
  return { limit, intervalMs: 60_000 };
}

export const ISSUEDESK_OPERATIONS = defineOperations({
  GetMe: { method: 'GET', path: '/me', rateLimit: perMinute(60) },
  GetIssues: { method: 'GET', path: '/issues', rateLimit: perMinute(10) },
  GetIssue: { method: 'GET', path: '/issues/{id}', rateLimit: perMinute(60) },
  UpdateIssue: { method: 'PATCH', path: '/issues/{id}', rateLimit: perMinute(20) },
  CreateIssueNote: { method: 'POST', path: '/issues/{id}/note', rateLimit: perMinute(10) },
  GetIssueMessages: { method: 'GET', path: '/issues/{id}/messages', rateLimit: perMinute(20) },
  GetIssueStatuses: { method: 'GET', path: '/issue-statuses', rateLimit: perMinute(10) },
  GetContacts: { method: 'GET', path: '/contacts', rateLimit: perMinute(60) },
  GetContact: { method: 'GET', path: '/contacts/{id}', rateLimit: perMinute(60) },
  SearchContacts: { method: 'POST', path: '/contacts/search', rateLimit: perMinute(20) },
  GetUsers: { method: 'GET', path: '/users', rateLimit: perMinute(60) },
  GetUser: { method: 'GET', path: '/users/{id}', rateLimit: perMinute(60) },
  GetTeams: { method: 'GET', path: '/teams', rateLimit: perMinute(60) },
  GetTeam: { method: 'GET', path: '/teams/{id}', rateLimit: perMinute(60) },
});
