/**
 * What the emulator shows under /_emulator/ (summary, collections, items) and how it reseeds: the issue desk's
 * InspectableService over its database. No HTTP here; the shared control API serves it.
 */
import { secretHint } from '../../../emulation/authorization.js';
import type { Clock } from '../../../emulation/clock.js';
import {
  type CollectionPage,
  type CollectionQuery,
  type InspectableService,
  type ResetOptions,
  resetSettings,
  type SeedSettings,
} from '../../../emulation/inspection.js';
import { ok } from '../../../emulation/result.js';
import type { IssueDeskDatabase } from './database.js';
import type { MessageView } from './records.js';
import { buildSeedData } from './seed/seed.js';
import {
  contactToWire,
  issueToWire,
  messageToWire,
  orgToWire,
  statusToWire,
  teamToWire,
  userToWire,
} from './wire.js';

/** Largest dataset /_emulator/reset will build, so a typo cannot hang the emulator. */
const MAX_SCALE = 200_000;

export interface InspectionOptions {
  database: IssueDeskDatabase;
  token: string;
  clock: Clock;
  /** The seed and scale this emulator was started with: a reset without them reuses these. */
  configured: SeedSettings;
}

export function issueDeskInspection({
  database,
  token,
  clock,
  configured,
}: InspectionOptions): InspectableService {
  const service: InspectableService = {
    summary: () => ({
      counts: database.counts(),
      org: orgToWire(database.org()),
      token_hint: secretHint(token),
      ...database.seedInfo(),
    }),
    collectionNames: () => ['issues', 'messages', 'contacts', 'users', 'teams', 'statuses'],
    collection: (name, query) => inspectCollection(database, name, query),
    item: (name, id) => inspectItem(database, name, id),
    reset: (options: ResetOptions) => {
      const settings = resetSettings(options, configured, MAX_SCALE);
      if (!settings.ok) return settings;
      database.replaceAll(buildSeedData({ ...settings.value, now: clock.now() }));
      return ok(service.summary());
    },
  };
  return service;
}

/** Inspection adds what the wire Message lacks: its issue, and the HTML under the issue's own field name. */
function inspectMessage(m: MessageView): Record<string, unknown> {
  return { issue_id: m.issueId, ...messageToWire(m), body_html: m.html };
}

function slice<T>(items: T[], query: CollectionQuery): CollectionPage {
  return { total: items.length, items: items.slice(query.offset, query.offset + query.limit) };
}

function inspectCollection(
  database: IssueDeskDatabase,
  name: string,
  query: CollectionQuery,
): CollectionPage | undefined {
  switch (name) {
    case 'issues':
      return {
        total: database.counts().issues,
        items: database.issuesByNumber(query.offset, query.limit).map((issue) => issueToWire(issue, '')),
      };
    case 'messages': {
      const issueRef = query.params.issue_id;
      const issue = issueRef === undefined ? undefined : database.findIssue(issueRef);
      if (issueRef !== undefined && !issue) return { total: 0, items: [] };
      const page = database.messages(query.offset, query.limit, issue?.id);
      return {
        total: page.total,
        items: page.items.map((m) => ({ issue_id: m.issueId, ...messageToWire(m) })),
      };
    }
    case 'contacts':
      return slice(database.allContacts().map(contactToWire), query);
    case 'users':
      return slice(database.allUsers().map(userToWire), query);
    case 'teams':
      return slice(database.allTeams().map(teamToWire), query);
    case 'statuses':
      return slice(database.statuses().map(statusToWire), query);
    default:
      return undefined;
  }
}

function inspectItem(database: IssueDeskDatabase, name: string, id: string): unknown | undefined {
  switch (name) {
    case 'issues': {
      const issue = database.findIssue(id);
      if (!issue) return undefined;
      const messages = database.messages(0, Number.MAX_SAFE_INTEGER, issue.id).items.map(inspectMessage);
      const threads = database.threadsOfIssue(issue.id).map((t) => ({ id: t.id, name: t.name }));
      return { ...issueToWire(issue, ''), messages, threads };
    }
    case 'messages': {
      const message = database.message(id);
      return message ? inspectMessage(message) : undefined;
    }
    case 'contacts': {
      const contact = database.contact(id);
      return contact ? contactToWire(contact) : undefined;
    }
    case 'users': {
      const user = database.user(id);
      return user ? userToWire(user) : undefined;
    }
    case 'teams': {
      const team = database.team(id);
      return team ? teamToWire(team) : undefined;
    }
    case 'statuses': {
      const status = database.statuses().find((s) => s.slug === id);
      return status ? statusToWire(status) : undefined;
    }
    default:
      return undefined;
  }
}
