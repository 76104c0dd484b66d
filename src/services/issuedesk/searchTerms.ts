// The words people use for each IssueDesk tool that its title and description leave out (everyday, vendor and
// neighbouring-product words, and what tells it from its near neighbours). search_tools indexes them in discovery
// mode (runtime/toolSearch.ts); tools/list never shows them, so they cost an agent no tokens. Written from what
// each tool does, not from the discovery fixture's tasks.

export const ISSUEDESK_SEARCH_TERMS: Readonly<Record<string, string>> = {
  WhoAmI:
    'API key working, test login, verify credentials, ping, healthcheck, authenticated, valid credentials, which workspace, which company account, service account profile, current identity, my profile, setup sanity test, Pylon me, auth valid, bearer key ok, reachable',
  ListIssues:
    'browse tickets, all tickets, every case, ticket queue, backlog, inbox, this week, last week, date range, opened between dates, recent conversations, unresolved, owned by agent, labeled, waiting on customer, waiting on you, on hold, closed tickets, new tickets, how many tickets, count tickets, next page, Zendesk view, support queue, Pylon',
  GetIssue:
    'ticket details, show ticket, open a ticket, look at case, read conversation, view single ticket, ticket #, what the ticket says, problem summary, full content, fetch one, case details, requester, current owner, Zendesk ticket, Pylon, inspect',
  SearchIssues:
    'find tickets, look up cases, mentioning, tickets about, related to topic, similar problems, duplicate reports, relevance, free text, boolean AND OR NOT, exclude words, exact phrase, which ticket talks about, past month, recent tickets containing, complaints about, Zendesk, Pylon',
  AssignIssue:
    "reassign ticket, hand off, route to agent, give ticket to, set owner, change owner, delegate, transfer case, take ownership, claim ticket, pick up, escalate to teammate, dispatch, put on someone's plate, assignee, Zendesk, who handles it",
  UpdateIssueStatus:
    'close ticket, resolve, mark resolved, reopen, mark done, solved, put on hold, waiting on customer, waiting on you, back to new, pending, move to stage, transition, finish case, archive conversation, set workflow stage, Zendesk solved, progress',
  AddMessage:
    'private comment, comment on ticket, staff-only remark, hidden from requester, jot down, annotate, leave a memo, write on ticket, log findings, context for teammates, not a reply, whisper, rich formatting, Zendesk private, Intercom, behind the scenes, post update internally',
  ListContacts:
    'all clients, everyone, browse end users, requesters, buyers, address book, directory of people, export, how many, count, paging, external people, Zendesk end-users, Intercom users, client roster, paginate',
  SearchContacts:
    'find customer, look up requester, who is, customer by address, @domain, company domain, end user, client lookup, contact id for, approximate spelling, typo tolerant, misspelled, person lookup, Zendesk end-user, Intercom lead, find by mail',
  ListUsers:
    'all staff, teammates, support reps, employees, roster, seats, everyone on the team, browse, how many staff, count, internal people, support staff, who works here, admins, Zendesk staff, paging',
  SearchUsers:
    'find teammate, look up agent, support rep, staff member, colleague, employee, who is, user id for, before assigning, approximate spelling, misspelled, resolve to id, owner lookup, internal person, Pylon user',
  ListTeams:
    'all groups, departments, support groups, queues, squads, pods, browse, how many groups, headcount, size, org chart, Zendesk groups, units, everything',
  GetTeamAndAssignment:
    'who is on, roster, membership, people in group, staff in department, squad composition, belongs to, people on it, look at group, show group details, open group, which agents belong, headcount, Zendesk group, staffing',
};
