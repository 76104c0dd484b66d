/**
 * The bulk data tables' seed: a "Customers" table of the organisation's root account, 250 rows derived from
 * their index alone, so tests and the sandbox can name any of them.
 */
import type { BulkRecord, BulkTables, DataTableDoc } from '../admin/bulkTables.js';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const FIRST_NAMES = [
  'Ada',
  'Alan',
  'Barbara',
  'Claude',
  'Dorothy',
  'Edsger',
  'Frances',
  'Grace',
  'Hedy',
  'Ivan',
  'Joan',
  'Ken',
  'Lynn',
  'Margaret',
  'Niklaus',
  'Radia',
  'Sophie',
  'Tim',
  'Ursula',
  'Vint',
] as const;
const LAST_NAMES = [
  'Lovelace',
  'Turing',
  'Liskov',
  'Shannon',
  'Vaughan',
  'Dijkstra',
  'Allen',
  'Hopper',
  'Lamarr',
  'Sutherland',
  'Clarke',
  'Thompson',
  'Conway',
  'Hamilton',
  'Wirth',
  'Perlman',
  'Wilson',
  'Lee',
  'Franklin',
  'Cerf',
] as const;
const PLANS = ['free', 'team', 'business', 'enterprise'] as const;

/** The seeded data table, for tests and the sandbox. */
export const BULK_SEED = {
  tableName: 'Customers',
  primaryKeyFieldName: 'email',
  fields: [
    { name: 'name', type: 'text' },
    { name: 'plan', type: 'text' },
    { name: 'seats', type: 'number' },
    { name: 'status', type: 'text' },
    { name: 'signupDate', type: 'text' },
  ] as DataTableDoc['fields'],
  records: 250,
} as const;

/**
 * Customer `index` (0-based) of the seed, from the index alone: signed up every second day, oldest first, the
 * last one two days before `now`; every fifth one edited a day after signing up.
 */
export function seededCustomer(index: number, now: Date): BulkRecord {
  const first = FIRST_NAMES[index % FIRST_NAMES.length] ?? 'Ada';
  const last =
    LAST_NAMES[(index * 7 + Math.floor(index / LAST_NAMES.length)) % LAST_NAMES.length] ?? 'Lovelace';
  const plan = PLANS[(index * 3 + Math.floor(index / 10)) % PLANS.length] ?? 'free';
  const seats =
    plan === 'free'
      ? 1
      : plan === 'team'
        ? 2 + (index % 9)
        : plan === 'business'
          ? 10 + ((index * 7) % 41)
          : 50 + ((index * 13) % 451);
  const created = now.getTime() - (BULK_SEED.records - index) * 2 * DAY_MS + (index % 10) * HOUR_MS;
  const createdTime = new Date(created).toISOString();
  return {
    primaryKey: `${first}.${last}.${index + 1}@customers.example.com`.toLowerCase(),
    fields: {
      name: `${first} ${last}`,
      plan,
      seats,
      status: index % 9 === 4 ? 'churned' : 'active',
      signupDate: createdTime.slice(0, 10),
    },
    createdTime,
    ...(index % 5 === 0 ? { updatedTime: new Date(created + DAY_MS).toISOString() } : {}),
  };
}

/** Clears the bulk tables and seeds "Customers" for `accountId` (the organisation's root account). */
export function seedBulkTables(
  bulk: BulkTables,
  options: { accountId: string | undefined; tableId: () => string; now: Date },
): void {
  bulk.clear();
  if (options.accountId === undefined) return;
  const table = bulk.createTable({
    id: options.tableId(),
    enterpriseAccountId: options.accountId,
    name: BULK_SEED.tableName,
    primaryKeyFieldName: BULK_SEED.primaryKeyFieldName,
    fields: BULK_SEED.fields.map((f) => ({ ...f })),
    createdTime: new Date(options.now.getTime() - (BULK_SEED.records * 2 + 20) * DAY_MS).toISOString(),
  });
  for (let index = 0; index < BULK_SEED.records; index++) {
    bulk.seedRecord(table.id, seededCustomer(index, options.now));
  }
}
