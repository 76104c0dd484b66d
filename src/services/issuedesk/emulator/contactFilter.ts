/**
 * The filter language of POST /contacts/search: parsed into a checked tree (with errors that name the bad field
 * or operator) and evaluated against contacts.
 */
import { err, ok, type Result } from '../../../emulation/result.js';
import type { ContactRecord } from './records.js';

/** Every operator upstream's Filter object knows; only some are valid for contact fields. */
export const FILTER_OPERATORS = [
  'equals',
  'not_equals',
  'contains',
  'does_not_contain',
  'in',
  'not_in',
  'and',
  'or',
  'time_is_after',
  'time_is_before',
  'time_range',
  'string_contains',
  'string_does_not_contain',
  'is_set',
  'is_unset',
  'greater_than',
  'less_than',
  'greater_than_or_equals',
  'less_than_or_equals',
] as const;

export const CONTACT_FILTER_FIELDS = {
  id: ['equals', 'in', 'not_in'],
  email: ['equals', 'in', 'not_in', 'string_contains'],
  name: ['equals', 'string_contains'],
  account_id: ['equals', 'in', 'not_in'],
} as const;

export type ContactFilterField = keyof typeof CONTACT_FILTER_FIELDS;
type LeafOperator = 'equals' | 'in' | 'not_in' | 'string_contains';

export const MAX_FILTER_DEPTH = 3;

export type ContactFilter =
  | { operator: 'and' | 'or'; subfilters: ContactFilter[] }
  | { operator: 'equals' | 'string_contains'; field: ContactFilterField; value: string }
  | { operator: 'in' | 'not_in'; field: ContactFilterField; values: string[] };

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function parseContactFilter(raw: unknown, path = 'filter', depth = 1): Result<ContactFilter, string> {
  if (!isRecord(raw))
    return err(`${path} must be an object with "field", "operator" and "value" or "values"`);
  if (depth > MAX_FILTER_DEPTH)
    return err(`${path}: the filter tree is deeper than the maximum depth of ${MAX_FILTER_DEPTH}`);
  const { operator, field, value, values, subfilters } = raw;
  if (typeof operator !== 'string' || operator === '') return err(`${path}.operator is required`);
  if (!(FILTER_OPERATORS as readonly string[]).includes(operator)) {
    return err(`${path}.operator: unknown operator "${operator}"`);
  }
  if (operator === 'and' || operator === 'or') {
    if (!Array.isArray(subfilters) || subfilters.length === 0) {
      return err(`${path}.subfilters must be a non-empty array when operator is "${operator}"`);
    }
    const parsed: ContactFilter[] = [];
    for (const [i, sub] of subfilters.entries()) {
      const r = parseContactFilter(sub, `${path}.subfilters[${i}]`, depth + 1);
      if (!r.ok) return r;
      parsed.push(r.value);
    }
    return ok({ operator, subfilters: parsed });
  }
  if (subfilters !== undefined && subfilters !== null) {
    return err(`${path}.subfilters is only allowed when operator is "and" or "or"`);
  }
  if (typeof field !== 'string' || field === '')
    return err(`${path}.field is required for operator "${operator}"`);
  if (!Object.hasOwn(CONTACT_FILTER_FIELDS, field)) {
    return err(
      `${path}.field: contacts cannot be filtered by "${field}"; supported fields: ${Object.keys(CONTACT_FILTER_FIELDS).join(', ')}`,
    );
  }
  const f = field as ContactFilterField;
  const allowed: readonly string[] = CONTACT_FILTER_FIELDS[f];
  if (!allowed.includes(operator)) {
    return err(
      `${path}.operator "${operator}" is not supported for field "${f}"; use one of ${allowed.join(', ')}`,
    );
  }
  const op = operator as LeafOperator;
  if (op === 'in' || op === 'not_in') {
    if (!Array.isArray(values) || !values.every((v) => typeof v === 'string')) {
      return err(`${path}.values must be an array of strings for operator "${op}"`);
    }
    return ok({ operator: op, field: f, values: values as string[] });
  }
  if (typeof value !== 'string') return err(`${path}.value must be a string for operator "${op}"`);
  return ok({ operator: op, field: f, value });
}

/** The values a field holds for matching; email and name compare case-insensitively. */
function fieldValues(contact: ContactRecord, field: ContactFilterField): string[] {
  switch (field) {
    case 'id':
      return [contact.id];
    case 'email':
      return contact.emails.map((e) => e.toLowerCase());
    case 'name':
      return [contact.name.toLowerCase()];
    case 'account_id':
      return contact.accountId === null ? [] : [contact.accountId];
  }
}

function normalise(field: ContactFilterField, v: string): string {
  return field === 'email' || field === 'name' ? v.toLowerCase() : v;
}

export function matchesContact(filter: ContactFilter, contact: ContactRecord): boolean {
  switch (filter.operator) {
    case 'and':
      return filter.subfilters.every((f) => matchesContact(f, contact));
    case 'or':
      return filter.subfilters.some((f) => matchesContact(f, contact));
    case 'equals': {
      const want = normalise(filter.field, filter.value);
      return fieldValues(contact, filter.field).includes(want);
    }
    case 'string_contains': {
      const want = normalise(filter.field, filter.value);
      return fieldValues(contact, filter.field).some((v) => v.includes(want));
    }
    case 'in':
    case 'not_in': {
      const wanted = new Set(filter.values.map((v) => normalise(filter.field, v)));
      const hit = fieldValues(contact, filter.field).some((v) => wanted.has(v));
      return filter.operator === 'in' ? hit : !hit;
    }
  }
}
