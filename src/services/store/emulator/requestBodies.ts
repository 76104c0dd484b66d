/**
 * The emulator's side of the one request-body contract: incoming bodies are checked with the same zod schemas
 * the StoreApi tools publish (services/store/schemas), before any semantic check. Failures become the upstream's
 * 422s: INVALID_RECORDS for a bad records batch (none, more than 10, or a record without its id), otherwise
 * INVALID_REQUEST_UNKNOWN with every problem named.
 */
import type { z } from 'zod';
import { err, ok, type Result } from '../../../emulation/result.js';
import { formatZodIssues } from '../../../text/zodIssues.js';
import { RECORDS_PER_REQUEST, STORE_BODIES, type StoreBodyName } from '../schemas/index.js';
import { errors, type StoreError } from './errors.js';

export type { StoreBodyName } from '../schemas/index.js';
export {
  ATTACHMENT_MAX_BASE64_CHARS,
  FIELD_DESCRIPTION_MAX,
  PRIMARY_FIELD_TYPES,
  RECORDS_PER_REQUEST,
} from '../schemas/index.js';

const BATCH_BODIES: ReadonlySet<StoreBodyName> = new Set([
  'createRecords',
  'updateRecords',
  'replaceRecords',
]);

function isBatchIssue(issue: z.core.$ZodIssue): boolean {
  const [first, index, key] = issue.path;
  if (first !== 'records') return false;
  if (issue.path.length === 1) return true;
  return typeof index === 'number' && (issue.path.length === 2 || key === 'id');
}

export function checkBody(name: StoreBodyName, value: unknown): Result<void, StoreError> {
  if (BATCH_BODIES.has(name) && typeof value === 'object' && value !== null && 'records' in value) {
    const records = (value as { records: unknown }).records;
    if (!Array.isArray(records) || records.length === 0 || records.length > RECORDS_PER_REQUEST) {
      return err(errors.invalidRecords());
    }
  }
  const parsed = (STORE_BODIES[name] as z.ZodType).safeParse(value);
  if (parsed.success) return ok(undefined);
  if (BATCH_BODIES.has(name) && parsed.error.issues.some(isBatchIssue)) return err(errors.invalidRecords());
  const detail = value === undefined ? 'The request body is missing.' : formatZodIssues(parsed.error);
  return err(errors.invalidRequest(detail.endsWith('.') ? detail : `${detail}.`));
}
