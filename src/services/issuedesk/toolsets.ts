// IssueDesk's toolsets: named groups of its 13 tools, each tool in exactly one, for `serve --toolsets` and the
// HTTP paths `/mcp/issuedesk.<toolset>` (docs/toolsets.md). The issue tools take people and teams by name
// (fuzzy matching), so `issues` works alone; `directory` is for looking people and teams up.

import type { Toolset } from '../../runtime/tool.js';

export const ISSUEDESK_TOOLSETS = {
  issues: {
    description: 'Find, read, assign and update issues; add internal notes',
    tools: ['ListIssues', 'GetIssue', 'SearchIssues', 'AssignIssue', 'UpdateIssueStatus', 'AddMessage'],
  },
  directory: {
    description: 'Contacts, users and teams; who the token belongs to',
    tools: [
      'WhoAmI',
      'ListContacts',
      'SearchContacts',
      'ListUsers',
      'SearchUsers',
      'ListTeams',
      'GetTeamAndAssignment',
    ],
  },
} as const satisfies Record<string, Toolset>;
