/**
 * Shapes of the request bodies and query values the emulated Pylon endpoints accept, checked with zod and
 * turned into database inputs. As upstream documents: unknown fields are ignored and null means "not sent".
 */
import { z } from 'zod';
import { err, ok, type Result } from '../../../emulation/result.js';
import { formatZodIssues } from '../../../text/zodIssues.js';
import type { IssuePatch, NoteInput } from './database.js';

const MAX_WINDOW_MS = 30 * 24 * 60 * 60 * 1000;

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/;

/** Parses an RFC 3339 timestamp strictly (no rolled-over dates such as Feb 30); epoch ms or undefined. */
export function parseRfc3339(value: string): number | undefined {
  const m = RFC3339.exec(value);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth) return undefined;
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  if (m[9] !== undefined && (Number(m[9]) > 23 || Number(m[10]) > 59)) return undefined;
  const ms = Date.parse(value.toUpperCase());
  return Number.isNaN(ms) ? undefined : ms;
}

function describeTimeProblem(name: string, value: string): string {
  const hint = value.includes(' ') ? ' (a "+" in a query string must be sent as %2B)' : '';
  return `${name} must be an RFC 3339 timestamp such as 2024-05-01T00:00:00Z, got "${value}"${hint}`;
}

/** The required time window of GET /issues: both ends RFC 3339, start before end, at most 30 days apart. */
export function parseIssueWindow(
  start: string | undefined,
  end: string | undefined,
): Result<{ startMs: number; endMs: number }, string> {
  const missing = [
    start === undefined || start === '' ? 'start_time' : '',
    end === undefined || end === '' ? 'end_time' : '',
  ]
    .filter(Boolean)
    .join(' and ');
  if (missing)
    return err(`${missing} ${missing.includes(' and ') ? 'are' : 'is'} required (RFC 3339 timestamps)`);
  const startMs = parseRfc3339(start as string);
  if (startMs === undefined) return err(describeTimeProblem('start_time', start as string));
  const endMs = parseRfc3339(end as string);
  if (endMs === undefined) return err(describeTimeProblem('end_time', end as string));
  if (startMs >= endMs) return err('start_time must be before end_time');
  if (endMs - startMs > MAX_WINDOW_MS) {
    return err('The duration between start_time and end_time must be less than or equal to 30 days');
  }
  return ok({ startMs, endMs });
}

const CustomFieldValueSchema = z.object({
  slug: z.string().min(1),
  value: z.string().nullish(),
  values: z.array(z.string()).nullish(),
});

export const UpdateIssueRequestBodySchema = z.object({
  state: z.string().min(1, 'must not be empty').nullish(),
  title: z.string().trim().min(1, 'must not be empty').nullish(),
  assignee_id: z.string().nullish(),
  team_id: z.string().nullish(),
  account_id: z.string().min(1, 'must not be empty').nullish(),
  requester_id: z.string().min(1, 'must not be empty').nullish(),
  /** Deprecated upstream spelling of requester_id, still honoured. */
  requestor_id: z.string().min(1, 'must not be empty').nullish(),
  tags: z.array(z.string()).nullish(),
  custom_fields: z.array(CustomFieldValueSchema).nullish(),
  customer_portal_visible: z.boolean().nullish(),
  type: z.enum(['conversation', 'ticket']).nullish(),
});

export type UpdateIssueRequestBody = z.infer<typeof UpdateIssueRequestBodySchema>;

export const CreateIssueNoteRequestBodySchema = z.object({
  body_html: z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
    .refine((s) => s.trim() !== '', 'must not be empty'),
  thread_id: z.string().min(1).nullish(),
  message_id: z.string().min(1).nullish(),
  thread_name: z.string().nullish(),
  user_id: z.string().min(1).nullish(),
  attachment_urls: z.array(z.string()).nullish(),
});

export const SearchContactsRequestBodySchema = z.object({
  filter: z.unknown().optional(),
  cursor: z.string().nullish(),
  limit: z.unknown().optional(),
});

function parseWith<T>(schema: z.ZodType<T>, body: unknown): Result<T, string> {
  const parsed = schema.safeParse(body);
  return parsed.success ? ok(parsed.data) : err(formatZodIssues(parsed.error));
}

export function parseIssuePatch(body: unknown): Result<IssuePatch, string> {
  const parsed = parseWith(UpdateIssueRequestBodySchema, body);
  if (!parsed.ok) return parsed;
  const b = parsed.value;
  const patch: IssuePatch = {};
  if (b.state != null) patch.state = b.state;
  if (b.title != null) patch.title = b.title;
  // An empty string is the documented way to remove the assignee or the team.
  if (b.assignee_id != null) patch.assigneeId = b.assignee_id === '' ? null : b.assignee_id;
  if (b.team_id != null) patch.teamId = b.team_id === '' ? null : b.team_id;
  if (b.account_id != null) patch.accountId = b.account_id;
  const requester = b.requester_id ?? b.requestor_id;
  if (requester != null) patch.requesterId = requester;
  if (b.tags != null) patch.tags = b.tags;
  if (b.custom_fields != null) {
    patch.customFields = b.custom_fields.map((f) => ({
      slug: f.slug,
      ...(f.value != null ? { value: f.value } : {}),
      ...(f.values != null ? { values: f.values } : {}),
    }));
  }
  if (b.customer_portal_visible != null) patch.customerPortalVisible = b.customer_portal_visible;
  if (b.type != null) patch.type = b.type;
  return ok(patch);
}

export function parseNoteInput(body: unknown): Result<NoteInput, string> {
  const parsed = parseWith(CreateIssueNoteRequestBodySchema, body);
  if (!parsed.ok) return parsed;
  const b = parsed.value;
  return ok({
    bodyHtml: b.body_html,
    ...(b.thread_id != null ? { threadId: b.thread_id } : {}),
    ...(b.message_id != null ? { messageId: b.message_id } : {}),
    ...(b.thread_name != null && b.thread_name !== '' ? { threadName: b.thread_name } : {}),
    ...(b.user_id != null ? { userId: b.user_id } : {}),
    ...(b.attachment_urls != null ? { attachmentUrls: b.attachment_urls } : {}),
  });
}

export function parseSearchContactsBody(
  body: unknown,
): Result<{ filter: unknown; cursor: string | undefined; limit: unknown }, string> {
  const parsed = parseWith(SearchContactsRequestBodySchema, body);
  if (!parsed.ok) return parsed;
  if (parsed.value.filter === undefined || parsed.value.filter === null) return err('filter is required');
  return ok({
    filter: parsed.value.filter,
    cursor: parsed.value.cursor ?? undefined,
    limit: parsed.value.limit,
  });
}
