/**
 * Deterministic seed data for the Airtable emulator: the same (seed, scale, now) always yields the same ids and
 * rows. One workspace; four users (the first owns the sandbox token); three bases with a few hundred records:
 *   - "Product Roadmap": Teams and Features, the latter with every writable field type plus formula, lookup,
 *     count, rollup, createdTime, lastModifiedTime, createdBy, lastModifiedBy and autoNumber fields;
 *   - "Sales CRM": Companies, Contacts and Deals, linked, with currency, percent, rating, checkbox, autoNumber;
 *   - "Content Calendar": Posts with dates, collaborators and a formula slug;
 * and, when scale > 0, a "Scale" base whose Events table holds `scale` records, for benchmarks.
 * Views carry sorts and filters; some records have comments (threads and mentions included).
 */
import { createRng, type Rng } from '../../../../emulation/rng.js';
import type { StoreSeedData } from '../database.js';
import { IdMinter } from '../ids.js';
import type {
  BaseRow,
  CommentRow,
  FieldRow,
  JsonObject,
  PermissionLevel,
  RecordRow,
  StoredAttachment,
  UserRow,
  ViewRow,
  ViewSort,
  ViewType,
  WorkspaceRow,
} from '../model.js';

export const DEFAULT_SEED = 1;
export const DEFAULT_SCALE = 0;
export const MAX_SCALE = 200_000;

const DAY_MS = 24 * 60 * 60 * 1000;

export const SEED_USERS = [
  { name: 'Sandbox Owner', email: 'owner@sandbox.example.com' },
  { name: 'Ada Lovelace', email: 'ada@sandbox.example.com' },
  { name: 'Grace Hopper', email: 'grace@sandbox.example.com' },
  { name: 'Alan Turing', email: 'alan@sandbox.example.com' },
] as const;

interface FieldSpec {
  key: string;
  name: string;
  type: string;
  options?: JsonObject;
  description?: string;
}

interface TableHandle {
  id: string;
  baseId: string;
  fields: Map<string, FieldRow>;
  nextAutoNumber: number;
}

const COLORS = [
  'blueLight2',
  'greenLight2',
  'yellowLight2',
  'redLight2',
  'purpleLight2',
  'cyanLight2',
  'orangeLight2',
];

class SeedBuilder {
  readonly ids: IdMinter;
  readonly users: UserRow[] = [];
  readonly workspaces: WorkspaceRow[] = [];
  readonly bases: BaseRow[] = [];
  readonly permissions: { baseId: string; userId: string; level: PermissionLevel }[] = [];
  readonly tables: (StoreSeedData['tables'][number] & { handle: TableHandle })[] = [];
  readonly fields: FieldRow[] = [];
  readonly views: ViewRow[] = [];
  readonly records: RecordRow[] = [];
  readonly comments: Omit<CommentRow, 'seq'>[] = [];

  constructor(
    seed: number,
    readonly rng: Rng,
    readonly now: number,
  ) {
    this.ids = new IdMinter(seed);
  }

  iso(daysAgo: number): string {
    return new Date(this.now - Math.round(daysAgo * DAY_MS)).toISOString();
  }

  base(name: string, workspaceId: string, daysAgo: number, levels: PermissionLevel[]): string {
    const id = this.ids.next('base');
    this.bases.push({ id, workspaceId, name, createdTime: this.iso(daysAgo) });
    levels.forEach((level, i) => {
      const user = this.users[i];
      if (user && level !== 'none') this.permissions.push({ baseId: id, userId: user.id, level });
    });
    return id;
  }

  choices(names: readonly string[]): JsonObject {
    return {
      choices: names.map((name, i) => ({
        id: this.ids.next('choice'),
        name,
        color: COLORS[i % COLORS.length],
      })),
    };
  }

  table(baseId: string, name: string, description: string | null, specs: FieldSpec[]): TableHandle {
    const id = this.ids.next('table');
    const handle: TableHandle = { id, baseId, fields: new Map(), nextAutoNumber: 1 };
    for (const spec of specs) {
      const field: FieldRow = {
        id: this.ids.next('field'),
        tableId: id,
        name: spec.name,
        type: spec.type,
        description: spec.description ?? null,
        options: spec.options ?? null,
      };
      handle.fields.set(spec.key, field);
      this.fields.push(field);
    }
    const primary = handle.fields.get(specs[0]?.key ?? '') as FieldRow;
    this.tables.push({
      id,
      baseId,
      name,
      description,
      primaryFieldId: primary.id,
      dateDependencySettings: null,
      nextAutoNumber: 1,
      handle,
    });
    return handle;
  }

  f(table: TableHandle, key: string): FieldRow {
    const field = table.fields.get(key);
    if (!field) throw new Error(`seed: no field ${key}`);
    return field;
  }

  /** Two link fields that are each other's inverse. */
  link(from: TableHandle, fromKey: string, to: TableHandle, toKey: string, single: boolean): void {
    const a = this.f(from, fromKey);
    const b = this.f(to, toKey);
    a.options = {
      linkedTableId: to.id,
      isReversed: false,
      prefersSingleRecordLink: single,
      inverseLinkFieldId: b.id,
    };
    b.options = {
      linkedTableId: from.id,
      isReversed: false,
      prefersSingleRecordLink: false,
      inverseLinkFieldId: a.id,
    };
  }

  view(
    table: TableHandle,
    name: string,
    type: ViewType,
    config: {
      sorts?: [string, 'asc' | 'desc'][];
      filter?: string;
      hidden?: string[];
      personalFor?: string;
    } = {},
  ): void {
    const sorts: ViewSort[] = (config.sorts ?? []).map(([key, direction]) => ({
      fieldId: this.f(table, key).id,
      direction,
    }));
    // Filters are written with field keys in braces and stored with field ids, as the API's formulas are.
    const filter =
      config.filter?.replace(/\{(\w+)\}/g, (_, key: string) => `{${this.f(table, key).id}}`) ?? null;
    this.views.push({
      id: this.ids.next('view'),
      tableId: table.id,
      name,
      type,
      personalForUserId: config.personalFor ?? null,
      sorts,
      filter,
      hiddenFieldIds: (config.hidden ?? []).map((key) => this.f(table, key).id),
    });
  }

  record(table: TableHandle, cells: Record<string, unknown>, daysAgo: number, createdBy: string): RecordRow {
    const createdTime = this.iso(daysAgo);
    const stored: Record<string, unknown> = {};
    const modified: Record<string, readonly [string, string]> = {};
    for (const [key, value] of Object.entries(cells)) {
      if (value === undefined || value === null || value === '' || value === false) continue;
      if (Array.isArray(value) && value.length === 0) continue;
      const field = this.f(table, key);
      stored[field.id] = value;
      modified[field.id] = [createdTime, createdBy];
    }
    const row: RecordRow = {
      id: this.ids.next('record'),
      tableId: table.id,
      createdTime,
      createdBy,
      autoNumber: table.nextAutoNumber++,
      cells: stored,
      modified,
    };
    this.records.push(row);
    return row;
  }

  /** Sets a link from one record to others and the inverse cells, as a write through the API would. */
  connect(from: RecordRow, fromField: FieldRow, to: RecordRow[], inverse: FieldRow): void {
    if (to.length === 0) return;
    from.cells[fromField.id] = to.map((r) => r.id);
    for (const other of to) {
      const current = Array.isArray(other.cells[inverse.id]) ? (other.cells[inverse.id] as string[]) : [];
      other.cells[inverse.id] = [...current, from.id];
    }
  }

  comment(record: RecordRow, authorId: string, text: string, daysAgo: number, parent?: string): string {
    const id = this.ids.next('comment');
    const createdTime = this.iso(daysAgo);
    this.comments.push({
      id,
      recordId: record.id,
      authorId,
      text,
      parentCommentId: parent ?? null,
      createdTime,
      lastUpdatedTime: null,
    });
    return id;
  }
}

const FEATURE_NAMES = [
  'Dark mode',
  'Single sign-on',
  'CSV export',
  'Bulk edit',
  'Audit trail',
  'Offline sync',
  'Push notifications',
  'Custom fields',
  'Two-factor auth',
  'Usage analytics',
  'Public API v2',
  'Webhook retries',
  'Saved filters',
  'Keyboard shortcuts',
  'Calendar view',
  'Team spaces',
  'Granular permissions',
  'Data retention policy',
  'Slack integration',
  'Search suggestions',
];
const FEATURE_AREAS = ['for admins', 'on mobile', 'in reports', 'for guests', 'v2'];
const TEAM_NAMES = ['Platform', 'Growth', 'Mobile', 'Security', 'Design'];
const STATUSES = ['Idea', 'Planned', 'In progress', 'Shipped'];
const TAGS = ['UX', 'Backend', 'Mobile', 'Security', 'Performance', 'Integrations'];
const COMPANY_PREFIX = [
  'Acme',
  'Globex',
  'Initech',
  'Umbrella',
  'Hooli',
  'Stark',
  'Wayne',
  'Wonka',
  'Tyrell',
  'Cyberdyne',
];
const COMPANY_SUFFIX = ['Corp', 'Labs'];
const INDUSTRIES = ['Software', 'Retail', 'Finance', 'Healthcare', 'Manufacturing', 'Media'];
const FIRST = [
  'Maria',
  'Chen',
  'Amara',
  'Lukas',
  'Priya',
  'Diego',
  'Sofia',
  'Kenji',
  'Fatima',
  'Oscar',
  'Ingrid',
  'Tomas',
];
const LAST = [
  'Silva',
  'Wang',
  'Okafor',
  'Becker',
  'Sharma',
  'Lopez',
  'Rossi',
  'Tanaka',
  'Haddad',
  'Nilsson',
  'Novak',
];
const TITLES = ['CEO', 'CTO', 'Head of Sales', 'Engineer', 'Buyer', 'Operations lead'];
const STAGES = ['Lead', 'Qualified', 'Proposal', 'Negotiation', 'Closed won', 'Closed lost'];
const CHANNELS = ['Blog', 'Newsletter', 'Twitter', 'LinkedIn', 'YouTube'];
const TOPICS = [
  'Release notes',
  'Customer story',
  'How-to',
  'Roadmap update',
  'Hiring',
  'Behind the scenes',
  'Webinar',
];
const EVENT_KINDS = ['click', 'view', 'signup', 'purchase', 'error'];

function dateOnly(iso: string): string {
  return iso.slice(0, 10);
}

function buildRoadmap(b: SeedBuilder, workspaceId: string, users: UserRow[]): void {
  const [owner, ada, grace, alan] = users as [UserRow, UserRow, UserRow, UserRow];
  const { rng } = b;
  const baseId = b.base('Product Roadmap', workspaceId, 400, ['create', 'edit', 'read', 'none']);
  const teams = b.table(baseId, 'Teams', 'The teams that build the product.', [
    { key: 'name', name: 'Name', type: 'singleLineText' },
    { key: 'lead', name: 'Lead', type: 'singleCollaborator', options: {} },
    { key: 'features', name: 'Features', type: 'multipleRecordLinks' },
    { key: 'count', name: 'Feature count', type: 'count' },
    { key: 'estimate', name: 'Total estimate', type: 'rollup' },
    { key: 'notes', name: 'Notes', type: 'multilineText' },
  ]);
  const dateFmt = { dateFormat: { name: 'iso', format: 'YYYY-MM-DD' } };
  const features = b.table(baseId, 'Features', 'Everything on the roadmap.', [
    { key: 'name', name: 'Name', type: 'singleLineText', description: 'Short name of the feature' },
    { key: 'description', name: 'Description', type: 'richText' },
    { key: 'status', name: 'Status', type: 'singleSelect', options: b.choices(STATUSES) },
    { key: 'tags', name: 'Tags', type: 'multipleSelects', options: b.choices(TAGS) },
    { key: 'team', name: 'Team', type: 'multipleRecordLinks' },
    { key: 'teamLead', name: 'Team lead', type: 'multipleLookupValues' },
    { key: 'owner', name: 'Owner', type: 'singleCollaborator', options: {} },
    { key: 'reviewers', name: 'Reviewers', type: 'multipleCollaborators', options: {} },
    {
      key: 'estimate',
      name: 'Estimate',
      type: 'number',
      options: { precision: 1 },
      description: 'Days of work',
    },
    { key: 'progress', name: 'Progress', type: 'percent', options: { precision: 0 } },
    { key: 'budget', name: 'Budget', type: 'currency', options: { precision: 2, symbol: '$' } },
    {
      key: 'priority',
      name: 'Priority',
      type: 'rating',
      options: { color: 'yellowBright', icon: 'star', max: 5 },
    },
    { key: 'spent', name: 'Time spent', type: 'duration', options: { durationFormat: 'h:mm' } },
    { key: 'approved', name: 'Approved', type: 'checkbox', options: { color: 'greenBright', icon: 'check' } },
    { key: 'target', name: 'Target date', type: 'date', options: dateFmt },
    {
      key: 'kickoff',
      name: 'Kickoff',
      type: 'dateTime',
      options: { ...dateFmt, timeFormat: { name: '24hour', format: 'HH:mm' }, timeZone: 'utc' },
    },
    { key: 'spec', name: 'Spec', type: 'multipleAttachments', options: { isReversed: false } },
    { key: 'specUrl', name: 'Spec URL', type: 'url' },
    { key: 'contact', name: 'Contact email', type: 'email' },
    { key: 'phone', name: 'Support phone', type: 'phoneNumber' },
    { key: 'sku', name: 'SKU', type: 'barcode' },
    { key: 'score', name: 'Score', type: 'formula' },
    { key: 'summary', name: 'Summary', type: 'formula' },
    { key: 'created', name: 'Created', type: 'createdTime' },
    { key: 'modified', name: 'Last modified', type: 'lastModifiedTime' },
    { key: 'createdBy', name: 'Created by', type: 'createdBy' },
    { key: 'modifiedBy', name: 'Last modified by', type: 'lastModifiedBy' },
    { key: 'number', name: 'Feature #', type: 'autoNumber' },
  ]);
  b.link(features, 'team', teams, 'features', true);
  const ff = (key: string) => b.f(features, key);
  const tf = (key: string) => b.f(teams, key);
  tf('count').options = { recordLinkFieldId: tf('features').id };
  tf('estimate').options = {
    recordLinkFieldId: tf('features').id,
    fieldIdInLinkedTable: ff('estimate').id,
    result: { type: 'number', options: { precision: 1 } },
    aggregation: 'SUM(values)',
  };
  ff('teamLead').options = { recordLinkFieldId: ff('team').id, fieldIdInLinkedTable: tf('lead').id };
  ff('score').options = { formula: `ROUND({${ff('estimate').id}} * {${ff('priority').id}}, 1)` };
  ff('summary').options = { formula: `{${ff('name').id}} & " (" & {${ff('status').id}} & ")"` };
  const dateTimeResult = {
    result: {
      type: 'dateTime',
      options: {
        dateFormat: dateFmt.dateFormat,
        timeFormat: { name: '24hour', format: 'HH:mm' },
        timeZone: 'client',
      },
    },
  };
  ff('created').options = dateTimeResult;
  ff('modified').options = { isValid: true, referencedFieldIds: [], ...dateTimeResult };

  b.view(teams, 'Grid view', 'grid');
  b.view(features, 'Grid view', 'grid');
  b.view(features, 'By status', 'grid', {
    sorts: [
      ['status', 'asc'],
      ['name', 'asc'],
    ],
  });
  b.view(features, 'Shipped', 'grid', { filter: "{status} = 'Shipped'", sorts: [['target', 'desc']] });
  b.view(features, 'Approved backlog', 'grid', {
    filter: "AND({approved}, {status} != 'Shipped')",
    sorts: [['priority', 'desc']],
    hidden: ['description', 'spec', 'phone', 'sku'],
  });
  b.view(features, 'Kanban', 'kanban', { sorts: [['priority', 'desc']] });
  b.view(features, 'Roadmap', 'timeline', { sorts: [['target', 'asc']] });
  b.view(features, 'Request form', 'form');
  b.view(features, "Ada's view", 'grid', { personalFor: ada.id, filter: `{owner} = '${ada.name}'` });

  const leads = [owner, ada, grace, alan, ada];
  const teamRows = TEAM_NAMES.map((name, i) =>
    b.record(
      teams,
      { name, lead: leads[i]?.id, notes: `${name} team charter and rituals.` },
      300 - i,
      owner.id,
    ),
  );
  const people = [owner, ada, grace, alan];
  for (let i = 0; i < 60; i++) {
    const name = `${FEATURE_NAMES[i % FEATURE_NAMES.length]}${i >= FEATURE_NAMES.length ? ` ${FEATURE_AREAS[Math.floor(i / FEATURE_NAMES.length) - 1]}` : ''}`;
    const status = rng.pick(STATUSES);
    const created = 250 - i * 3 - rng.int(0, 2);
    const withSpec = i % 7 === 0;
    const spec: StoredAttachment[] = withSpec
      ? [
          {
            id: b.ids.next('attachment'),
            url: `https://files.example.com/specs/${encodeURIComponent(name.toLowerCase().replace(/\s+/g, '-'))}.pdf`,
            filename: `${name} spec.pdf`,
            size: rng.int(20_000, 900_000),
            type: 'application/pdf',
          },
        ]
      : [];
    const row = b.record(
      features,
      {
        name,
        description: i % 3 === 0 ? `**${name}**: _why_ it matters and what ships first.` : undefined,
        status,
        tags: rng.sample(TAGS, rng.int(0, 3)),
        owner: rng.chance(0.8) ? rng.pick(people).id : undefined,
        reviewers: rng.sample(people, rng.int(0, 2)).map((u) => u.id),
        estimate: rng.chance(0.9) ? Math.round(rng.float() * 200) / 10 + 0.5 : undefined,
        progress: status === 'Shipped' ? 1 : status === 'In progress' ? rng.int(1, 9) / 10 : undefined,
        budget: rng.chance(0.7) ? rng.int(5, 120) * 500 : undefined,
        priority: rng.int(0, 5) || undefined,
        spent: rng.chance(0.6) ? rng.int(1, 80) * 900 : undefined,
        approved: rng.chance(0.5) || undefined,
        target: rng.chance(0.85) ? dateOnly(b.iso(rng.int(-120, 60))) : undefined,
        kickoff: rng.chance(0.6)
          ? `${dateOnly(b.iso(rng.int(0, 200)))}T${String(rng.int(8, 17)).padStart(2, '0')}:00:00.000Z`
          : undefined,
        spec,
        specUrl: withSpec ? `https://docs.example.com/specs/${i + 1}` : undefined,
        contact: rng.chance(0.5) ? `pm${i + 1}@example.com` : undefined,
        phone: i % 10 === 0 ? `+1 555 01${String(i).padStart(2, '0')}` : undefined,
        sku: i % 5 === 0 ? { text: `FEAT-${1000 + i}`, type: 'code128' } : undefined,
      },
      Math.max(1, created),
      rng.pick(people).id,
    );
    const team = teamRows[i % teamRows.length];
    if (team && rng.chance(0.9)) b.connect(row, ff('team'), [team], tf('features'));
    if (i % 6 === 0) {
      const first = b.comment(
        row,
        ada.id,
        `Can we scope ${name} down for the first release?`,
        Math.max(1, created - 2),
      );
      b.comment(row, owner.id, `@[${ada.id}] yes, the MVP is in the spec.`, Math.max(1, created - 3), first);
      if (i % 12 === 0)
        b.comment(row, grace.id, `Security review booked for ${name}.`, Math.max(1, created - 4));
    }
  }
}

function buildCrm(b: SeedBuilder, workspaceId: string, users: UserRow[]): void {
  const [owner, ada, grace] = users as [UserRow, UserRow, UserRow, UserRow];
  const { rng } = b;
  const baseId = b.base('Sales CRM', workspaceId, 380, ['create', 'comment', 'edit', 'none']);
  const companies = b.table(baseId, 'Companies', null, [
    { key: 'name', name: 'Name', type: 'singleLineText' },
    { key: 'industry', name: 'Industry', type: 'singleSelect', options: b.choices(INDUSTRIES) },
    { key: 'website', name: 'Website', type: 'url' },
    { key: 'employees', name: 'Employees', type: 'number', options: { precision: 0 } },
    { key: 'contacts', name: 'Contacts', type: 'multipleRecordLinks' },
    { key: 'deals', name: 'Deals', type: 'multipleRecordLinks' },
    { key: 'dealCount', name: 'Deal count', type: 'count' },
  ]);
  const contacts = b.table(baseId, 'Contacts', 'People we talk to.', [
    { key: 'name', name: 'Name', type: 'singleLineText' },
    { key: 'email', name: 'Email', type: 'email' },
    { key: 'phone', name: 'Phone', type: 'phoneNumber' },
    { key: 'title', name: 'Title', type: 'singleLineText' },
    { key: 'company', name: 'Company', type: 'multipleRecordLinks' },
    { key: 'vip', name: 'VIP', type: 'checkbox', options: { color: 'greenBright', icon: 'star' } },
    { key: 'deals', name: 'Deals', type: 'multipleRecordLinks' },
  ]);
  const deals = b.table(baseId, 'Deals', 'The sales pipeline.', [
    { key: 'name', name: 'Name', type: 'singleLineText' },
    { key: 'company', name: 'Company', type: 'multipleRecordLinks' },
    { key: 'contact', name: 'Contact', type: 'multipleRecordLinks' },
    { key: 'amount', name: 'Amount', type: 'currency', options: { precision: 2, symbol: '$' } },
    { key: 'probability', name: 'Probability', type: 'percent', options: { precision: 0 } },
    { key: 'stage', name: 'Stage', type: 'singleSelect', options: b.choices(STAGES) },
    { key: 'rating', name: 'Fit', type: 'rating', options: { color: 'yellowBright', icon: 'star', max: 5 } },
    { key: 'won', name: 'Won', type: 'checkbox', options: { color: 'greenBright', icon: 'check' } },
    {
      key: 'close',
      name: 'Close date',
      type: 'date',
      options: { dateFormat: { name: 'us', format: 'M/D/YYYY' } },
    },
    { key: 'owner', name: 'Owner', type: 'singleCollaborator', options: {} },
    { key: 'weighted', name: 'Weighted amount', type: 'formula' },
    { key: 'created', name: 'Created', type: 'createdTime' },
    { key: 'number', name: 'Deal #', type: 'autoNumber' },
  ]);
  b.link(contacts, 'company', companies, 'contacts', true);
  b.link(deals, 'company', companies, 'deals', true);
  b.link(deals, 'contact', contacts, 'deals', false);
  b.f(companies, 'dealCount').options = { recordLinkFieldId: b.f(companies, 'deals').id };
  b.f(deals, 'weighted').options = {
    formula: `{${b.f(deals, 'amount').id}} * {${b.f(deals, 'probability').id}}`,
  };
  b.f(deals, 'created').options = {
    result: {
      type: 'dateTime',
      options: {
        dateFormat: { name: 'us', format: 'M/D/YYYY' },
        timeFormat: { name: '12hour', format: 'h:mma' },
        timeZone: 'client',
      },
    },
  };
  b.view(companies, 'Grid view', 'grid');
  b.view(contacts, 'Grid view', 'grid');
  b.view(contacts, 'VIPs', 'grid', { filter: '{vip}', sorts: [['name', 'asc']] });
  b.view(deals, 'Grid view', 'grid');
  b.view(deals, 'Pipeline', 'kanban', { sorts: [['stage', 'asc']] });
  b.view(deals, 'Big deals', 'grid', { filter: '{amount} >= 50000', sorts: [['amount', 'desc']] });
  b.view(deals, 'Closing soon', 'calendar', { sorts: [['close', 'asc']], filter: 'NOT({won})' });

  const companyRows = [];
  for (let i = 0; i < 20; i++) {
    const name = `${COMPANY_PREFIX[i % COMPANY_PREFIX.length]} ${COMPANY_SUFFIX[Math.floor(i / COMPANY_PREFIX.length) % 2]}`;
    companyRows.push(
      b.record(
        companies,
        {
          name,
          industry: rng.pick(INDUSTRIES),
          website: `https://www.${name.toLowerCase().replace(/\s+/g, '')}.example.com`,
          employees: rng.int(5, 5000),
        },
        360 - i * 5,
        owner.id,
      ),
    );
  }
  const contactRows = [];
  for (let i = 0; i < 60; i++) {
    const first = FIRST[i % FIRST.length] as string;
    const last = LAST[(i * 7) % LAST.length] as string;
    const row = b.record(
      contacts,
      {
        name: `${first} ${last}`,
        email: `${first.toLowerCase()}.${last.toLowerCase()}${i}@example.com`,
        phone: rng.chance(0.7)
          ? `+1 555 ${String(rng.int(100, 999))} ${String(rng.int(1000, 9999))}`
          : undefined,
        title: rng.pick(TITLES),
        vip: rng.chance(0.2) || undefined,
      },
      340 - i * 4,
      rng.pick([owner, ada]).id,
    );
    const company = companyRows[i % companyRows.length];
    if (company) b.connect(row, b.f(contacts, 'company'), [company], b.f(companies, 'contacts'));
    contactRows.push(row);
  }
  for (let i = 0; i < 120; i++) {
    const company = rng.pick(companyRows);
    const stage = rng.pick(STAGES);
    const row = b.record(
      deals,
      {
        name: `Deal ${String(i + 1).padStart(3, '0')}`,
        amount: rng.int(1, 200) * 500,
        probability: stage === 'Closed won' ? 1 : stage === 'Closed lost' ? undefined : rng.int(1, 9) / 10,
        stage,
        rating: rng.int(0, 5) || undefined,
        won: stage === 'Closed won' || undefined,
        close: rng.chance(0.9) ? dateOnly(b.iso(rng.int(-90, 120))) : undefined,
        owner: rng.pick([owner, ada, grace]).id,
      },
      300 - i * 2,
      rng.pick([owner, ada]).id,
    );
    b.connect(row, b.f(deals, 'company'), [company], b.f(companies, 'deals'));
    const contact = rng.pick(contactRows);
    if (rng.chance(0.8)) b.connect(row, b.f(deals, 'contact'), [contact], b.f(contacts, 'deals'));
    if (i % 10 === 0) {
      b.comment(
        row,
        owner.id,
        `Follow up with ${String(company.cells[b.f(companies, 'name').id])} next week.`,
        10 + i / 10,
      );
      if (i % 20 === 0) b.comment(row, ada.id, `@[${owner.id}] sent the revised quote.`, 8 + i / 10);
    }
  }
}

function buildCalendar(b: SeedBuilder, workspaceId: string, users: UserRow[]): void {
  const [owner, ada, grace, alan] = users as [UserRow, UserRow, UserRow, UserRow];
  const { rng } = b;
  const baseId = b.base('Content Calendar', workspaceId, 200, ['create', 'read', 'none', 'create']);
  const posts = b.table(baseId, 'Posts', 'What we publish, where and when.', [
    { key: 'title', name: 'Title', type: 'singleLineText' },
    { key: 'body', name: 'Body', type: 'multilineText' },
    { key: 'channel', name: 'Channel', type: 'singleSelect', options: b.choices(CHANNELS) },
    {
      key: 'publishAt',
      name: 'Publish at',
      type: 'dateTime',
      options: {
        dateFormat: { name: 'friendly', format: 'LL' },
        timeFormat: { name: '12hour', format: 'h:mma' },
        timeZone: 'America/New_York',
      },
    },
    { key: 'author', name: 'Author', type: 'singleCollaborator', options: {} },
    {
      key: 'published',
      name: 'Published',
      type: 'checkbox',
      options: { color: 'greenBright', icon: 'check' },
    },
    { key: 'words', name: 'Word count', type: 'number', options: { precision: 0 } },
    {
      key: 'tags',
      name: 'Tags',
      type: 'multipleSelects',
      options: b.choices(['Product', 'Engineering', 'Culture', 'Events']),
    },
    { key: 'slug', name: 'Slug', type: 'formula' },
  ]);
  b.f(posts, 'slug').options = { formula: `LOWER(SUBSTITUTE({${b.f(posts, 'title').id}}, " ", "-"))` };
  b.view(posts, 'Grid view', 'grid');
  b.view(posts, 'Calendar', 'calendar', { sorts: [['publishAt', 'asc']] });
  b.view(posts, 'Published', 'grid', { filter: '{published}', sorts: [['publishAt', 'desc']] });
  b.view(posts, 'Gallery', 'gallery');
  for (let i = 0; i < 40; i++) {
    const published = i < 25;
    const daysAgo = published ? 150 - i * 5 : -(i - 24) * 3;
    b.record(
      posts,
      {
        title: `${TOPICS[i % TOPICS.length]} #${Math.floor(i / TOPICS.length) + 1}`,
        body: rng.chance(0.7) ? `Draft for ${TOPICS[i % TOPICS.length]}.\nSecond paragraph.` : undefined,
        channel: rng.pick(CHANNELS),
        publishAt: `${dateOnly(b.iso(daysAgo))}T${String(rng.int(13, 21)).padStart(2, '0')}:30:00.000Z`,
        author: rng.pick([owner, ada, grace, alan]).id,
        published: published || undefined,
        words: rng.int(200, 2500),
        tags: rng.sample(['Product', 'Engineering', 'Culture', 'Events'], rng.int(0, 2)),
      },
      Math.max(1, 160 - i * 4),
      rng.pick([owner, alan]).id,
    );
  }
}

/** The Scale base: `scale` Events, generated lazily so 200,000 rows never sit in memory at once. */
function buildScale(
  b: SeedBuilder,
  workspaceId: string,
  users: UserRow[],
  scale: number,
): Iterable<RecordRow> {
  const [owner] = users as [UserRow];
  const baseId = b.base('Scale', workspaceId, 30, ['create', 'none', 'none', 'none']);
  const events = b.table(baseId, 'Events', `${scale} generated events for benchmarks.`, [
    { key: 'name', name: 'Name', type: 'singleLineText' },
    { key: 'kind', name: 'Kind', type: 'singleSelect', options: b.choices(EVENT_KINDS) },
    { key: 'value', name: 'Value', type: 'number', options: { precision: 2 } },
    {
      key: 'occurred',
      name: 'Occurred',
      type: 'dateTime',
      options: {
        dateFormat: { name: 'iso', format: 'YYYY-MM-DD' },
        timeFormat: { name: '24hour', format: 'HH:mm' },
        timeZone: 'utc',
      },
    },
    { key: 'done', name: 'Done', type: 'checkbox', options: { color: 'greenBright', icon: 'check' } },
  ]);
  b.view(events, 'Grid view', 'grid');
  b.view(events, 'Purchases', 'grid', { filter: "{kind} = 'purchase'", sorts: [['value', 'desc']] });
  const f = (key: string) => b.f(events, key).id;
  const ids = {
    name: f('name'),
    kind: f('kind'),
    value: f('value'),
    occurred: f('occurred'),
    done: f('done'),
  };
  const table = b.tables.find((t) => t.id === events.id);
  if (table) table.nextAutoNumber = scale + 1;
  const { rng, now } = b;
  // Ids and values are drawn here, eagerly, so the minter's counter is final before the store reads it.
  const span = 30 * DAY_MS;
  const rows: { id: string; kind: string; value: number; offset: number; done: boolean }[] = [];
  for (let i = 0; i < scale; i++) {
    rows.push({
      id: b.ids.next('record'),
      kind: EVENT_KINDS[rng.int(0, EVENT_KINDS.length - 1)] as string,
      value: rng.int(0, 100_000) / 100,
      offset: rng.int(0, span),
      done: rng.chance(0.3),
    });
  }
  const createdBase = now - span;
  return {
    *[Symbol.iterator]() {
      for (const [i, r] of rows.entries()) {
        const createdTime = new Date(createdBase + (i * span) / Math.max(1, scale)).toISOString();
        const cells: Record<string, unknown> = {
          [ids.name]: `Event ${i + 1}`,
          [ids.kind]: r.kind,
          [ids.value]: r.value,
          [ids.occurred]: new Date(createdBase + r.offset).toISOString(),
        };
        if (r.done) cells[ids.done] = true;
        yield {
          id: r.id,
          tableId: events.id,
          createdTime,
          createdBy: owner.id,
          autoNumber: i + 1,
          cells,
          modified: {},
        };
      }
    },
  };
}

export interface SeedOptions {
  seed: number;
  scale: number;
  now: Date;
}

export function buildSeedData(options: SeedOptions): StoreSeedData {
  const { seed, scale } = options;
  const rng = createRng(seed);
  const now = Math.floor(options.now.getTime() / 1000) * 1000;
  const b = new SeedBuilder(seed, rng, now);
  for (const u of SEED_USERS) b.users.push({ id: b.ids.next('user'), name: u.name, email: u.email });
  const workspaceId = b.ids.next('workspace');
  b.workspaces.push({ id: workspaceId, name: 'Sandbox Workspace', createdTime: b.iso(500) });
  buildRoadmap(b, workspaceId, b.users);
  buildCrm(b, workspaceId, b.users);
  buildCalendar(b, workspaceId, b.users);
  const scaleRows = scale > 0 ? buildScale(b, workspaceId, b.users, scale) : [];
  // Records in creation order, as a base fills up over time; auto numbers follow that order.
  const seeded = [...b.records].sort((x, y) =>
    x.createdTime < y.createdTime ? -1 : x.createdTime > y.createdTime ? 1 : 0,
  );
  const counters = new Map<string, number>();
  for (const row of seeded) {
    const n = (counters.get(row.tableId) ?? 0) + 1;
    counters.set(row.tableId, n);
    row.autoNumber = n;
  }
  for (const t of b.tables) {
    const count = counters.get(t.id);
    if (count !== undefined) t.nextAutoNumber = count + 1;
  }
  const tables = b.tables.map(({ handle: _handle, ...row }) => row);
  return {
    info: { seed, scale, seededAt: new Date(now).toISOString() },
    idCounter: b.ids.counter,
    users: b.users,
    workspaces: b.workspaces,
    bases: b.bases,
    permissions: b.permissions,
    tables,
    fields: b.fields,
    views: b.views,
    records: {
      *[Symbol.iterator]() {
        yield* seeded;
        yield* scaleRows;
      },
    },
    comments: b.comments.sort((x, y) => x.createdTime.localeCompare(y.createdTime)),
  };
}
