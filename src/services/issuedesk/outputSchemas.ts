// What each IssueDesk tool returns on success (issue 15, output schemas): the compact shapes of shapes.ts and the
// tools' own envelopes. Lookups that are not certain answer `needs_confirmation` instead (matching.ts), so those
// tools' entries are a union of the two. What all tools share (a cut result, schema mode, errors) is added by
// runtime/outputSchemas.ts. Objects stay open (upstream objects gain fields; so may ours).

import { z } from 'zod';
import { lazyTable } from '../../runtime/outputSchemas.js';

/** Built on its first use (runtime/outputSchemas.ts lazyTable): the built program starts without it. */
export const ISSUEDESK_OUTPUT_SCHEMAS = lazyTable(() => {
  const ref = z.looseObject({ id: z.string(), email: z.string().optional() });

  /** shapes.ts issueSummary. */
  const issueSummary = z.looseObject({
    id: z.string(),
    number: z.number(),
    title: z.string(),
    state: z.string(),
    assignee: ref.nullable(),
    team: z.looseObject({ id: z.string() }).nullable(),
    tags: z.array(z.string()),
    created_at: z.string(),
    link: z.string().optional(),
  });

  /** shapes.ts issueDetail: the summary plus the body as plain text and a few more fields when the upstream has them. */
  const issueDetail = issueSummary.extend({
    body: z.string(),
    requester: ref.optional(),
    account_id: z.string().optional(),
    type: z.string().optional(),
    source: z.string().optional(),
    updated_at: z.string().optional(),
    latest_message_time: z.string().optional(),
  });

  const userSummary = z.looseObject({
    id: z.string(),
    name: z.string().optional(),
    email: z.string().optional(),
    status: z.string().optional(),
  });

  const contactSummary = z.looseObject({
    id: z.string(),
    name: z.string().nullable(),
    email: z.string().nullable(),
    other_emails: z.array(z.string()).optional(),
    account_id: z.string().optional(),
  });

  const teamSummary = z.looseObject({
    id: z.string(),
    name: z.string().optional(),
    member_count: z.number(),
  });

  /** How a lookup was decided: by ID, or by a match with its confidence. */
  const match = z.looseObject({
    how: z.enum(['id', 'exact', 'auto_accepted']),
    score: z.number().optional(),
  });

  /** A search tool's accepted match (matching.ts acceptedMatch): never by ID. */
  const accepted = z.looseObject({ how: z.enum(['exact', 'auto_accepted']), score: z.number() });

  /** The one result of an uncertain lookup: nothing was done; each candidate carries its ready next call. */
  const needsConfirmation = z.looseObject({
    status: z.literal('needs_confirmation'),
    message: z.string(),
    parameter: z.string(),
    query: z.string(),
    candidates: z.array(
      z.looseObject({
        id: z.string(),
        title: z.string().optional(),
        name: z.string().optional(),
        email: z.string().optional(),
        score: z.number(),
        next_call: z.looseObject({ tool: z.string(), arguments: z.looseObject({}) }),
      }),
    ),
  });

  /** A list page (tools.ts listShape): the items under their own name, their count and the next page's cursor. */
  const page = <K extends string>(key: K, item: z.ZodType) =>
    z.looseObject({ [key]: z.array(item), count: z.number(), next_cursor: z.string().nullable() } as {
      [P in K | 'count' | 'next_cursor']: z.ZodType;
    });

  /** A fuzzy search's answer (tools.ts searchResult): the best matches, and the accepted one if the rule took one. */
  const search = <K extends string>(noun: K, item: z.ZodObject) =>
    z.looseObject({
      query: z.string(),
      matches: z.array(item.extend({ score: z.number(), exact: z.boolean().optional() })),
      note: z.string().optional(),
      accepted: z.looseObject({ match: accepted, [noun]: item } as Record<string, z.ZodType>).optional(),
    });

  const done = z.literal('done');

  return {
    WhoAmI: z.looseObject({
      organization: z.looseObject({ id: z.string().nullable(), name: z.string().nullable() }),
      email: z.string().optional(),
      token: z.string(),
    }),
    ListIssues: z.looseObject({
      issues: z.array(issueSummary),
      count: z.number(),
      scanned: z.number(),
      window: z.looseObject({ start_time: z.string(), end_time: z.string() }),
      next_cursor: z.string().nullable(),
    }),
    GetIssue: z.union([z.looseObject({ status: done, match, issue: issueDetail }), needsConfirmation]),
    SearchIssues: z.looseObject({
      query: z.string(),
      results: z.array(issueSummary.extend({ score: z.number() })),
      searched: z.looseObject({
        issues: z.number(),
        start_time: z.string(),
        end_time: z.string(),
        complete: z.boolean(),
      }),
      accepted: z.looseObject({ match: accepted, issue: issueDetail }).optional(),
    }),
    AssignIssue: z.union([
      z.looseObject({
        status: done,
        issue: issueSummary,
        assignee: userSummary,
        previous_assignee: ref.nullable(),
        matches: z.looseObject({ issue: match, user: match }),
      }),
      needsConfirmation,
    ]),
    UpdateIssueStatus: z.union([
      z.looseObject({ status: done, issue: issueSummary, previous_state: z.string(), match }),
      needsConfirmation,
    ]),
    AddMessage: z.looseObject({
      status: done,
      note: z.looseObject({ id: z.string(), issue_id: z.string() }),
      body_html: z.string(),
    }),
    ListContacts: page('contacts', contactSummary),
    SearchContacts: search('contact', contactSummary),
    ListUsers: page('users', userSummary),
    SearchUsers: search('user', userSummary),
    ListTeams: page('teams', teamSummary),
    GetTeamAndAssignment: z.union([
      z.looseObject({
        status: done,
        match,
        team: z.looseObject({
          id: z.string(),
          name: z.string().optional(),
          members: z.array(
            z.looseObject({ id: z.string(), name: z.string().nullable(), email: z.string().optional() }),
          ),
        }),
        assignment: z.looseObject({ team_id: z.string(), note: z.string() }),
      }),
      needsConfirmation,
    ]),
  } satisfies Record<string, z.ZodType>;
});
