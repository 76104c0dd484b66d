// Conversions between the cell values the Web API stores and returns and the formula value model: what
// a formula sees when it reads `{Field}`, and what the API returns for a formula field's result.

import { NUMBER_FIELD_TYPES, TEXT_FIELD_TYPES } from '../model.js';
import { FormulaErrorValue, type FormulaValue } from './values.js';

const TEXT_TYPES = new Set<string>([...TEXT_FIELD_TYPES, 'singleSelect']);
const NUMBER_TYPES = new Set<string>([...NUMBER_FIELD_TYPES, 'autoNumber', 'count']);
const DATETIME_TYPES = new Set(['dateTime', 'createdTime', 'lastModifiedTime']);
const COLLABORATOR_TYPES = new Set(['singleCollaborator', 'createdBy', 'lastModifiedBy']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asText(cell: unknown): FormulaValue {
  if (typeof cell === 'string') return cell;
  if (typeof cell === 'number' || typeof cell === 'boolean') return String(cell);
  return null;
}

function asNumber(cell: unknown): FormulaValue {
  if (typeof cell === 'number') return cell;
  if (typeof cell === 'string' && cell.trim() !== '' && Number.isFinite(Number(cell))) return Number(cell);
  return null;
}

function asDate(cell: unknown, dateOnly: boolean): FormulaValue {
  if (cell instanceof Date) return Number.isNaN(cell.getTime()) ? null : cell;
  if (typeof cell !== 'string' || cell === '') return null;
  const ms = Date.parse(dateOnly && /^\d{4}-\d{2}-\d{2}$/.test(cell) ? `${cell}T00:00:00.000Z` : cell);
  return Number.isNaN(ms) ? null : new Date(ms);
}

function asArray(cell: unknown, item: (value: unknown) => FormulaValue): FormulaValue {
  if (!Array.isArray(cell)) return cell === undefined || cell === null ? null : [item(cell)];
  return cell.map(item);
}

function collaboratorName(cell: unknown): FormulaValue {
  if (!isRecord(cell)) return asText(cell);
  for (const key of ['name', 'email', 'id']) {
    const value = cell[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  return null;
}

function linkName(cell: unknown): FormulaValue {
  if (typeof cell === 'string') return cell;
  if (!isRecord(cell)) return null;
  if (typeof cell.name === 'string') return cell.name;
  return typeof cell.id === 'string' ? cell.id : null;
}

function attachmentText(cell: unknown): FormulaValue {
  if (!isRecord(cell)) return asText(cell);
  const filename = typeof cell.filename === 'string' ? cell.filename : '';
  const url = typeof cell.url === 'string' ? cell.url : '';
  return url === '' ? filename : `${filename} (${url})`;
}

// The exact shape the API gives a date-time (and formulaValueToCell writes), so a formula reading another
// formula's date result, or a lookup of a date-time field, sees a date. Date-only text ('2024-03-20') is
// left as text: DATESTR results look the same.
const API_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z$/;

/** A value that is already a computed result (formula, rollup, lookup): its API shape back to a value. */
function computedValue(cell: unknown): FormulaValue {
  if (cell === undefined || cell === null) return null;
  if (typeof cell === 'string') return API_DATE_TIME.test(cell) ? asDate(cell, false) : cell;
  if (typeof cell === 'number' || typeof cell === 'boolean') return cell;
  if (cell instanceof Date) return cell;
  if (Array.isArray(cell)) return cell.map(computedValue);
  if (isRecord(cell)) {
    if (typeof cell.error === 'string') return new FormulaErrorValue(cell.error);
    if (cell.specialValue === 'NaN') return Number.NaN;
    if (cell.specialValue === 'Infinity') return Number.POSITIVE_INFINITY;
    if (cell.specialValue === '-Infinity') return Number.NEGATIVE_INFINITY;
    if (typeof cell.filename === 'string') return attachmentText(cell);
    if (typeof cell.name === 'string' || typeof cell.email === 'string') return collaboratorName(cell);
    if (typeof cell.text === 'string') return cell.text;
    if (typeof cell.label === 'string') return cell.label;
    if (typeof cell.value === 'string' || typeof cell.value === 'number') return cell.value;
    if (typeof cell.id === 'string') return cell.id;
  }
  return null;
}

/** Converts a stored API cell value of a field type into the formula value model. */
export function cellToFormulaValue(fieldType: string, cell: unknown): FormulaValue {
  if (fieldType === 'checkbox') return cell === true;
  if (cell === undefined || cell === null) return null;
  if (TEXT_TYPES.has(fieldType)) return asText(cell);
  if (NUMBER_TYPES.has(fieldType)) return asNumber(cell);
  if (fieldType === 'date') return asDate(cell, true);
  if (DATETIME_TYPES.has(fieldType)) return asDate(cell, false);
  if (COLLABORATOR_TYPES.has(fieldType)) return collaboratorName(cell);
  switch (fieldType) {
    case 'barcode':
      return isRecord(cell) && typeof cell.text === 'string' ? cell.text : asText(cell);
    case 'multipleSelects':
      return asArray(cell, asText);
    case 'multipleRecordLinks':
      return asArray(cell, linkName);
    case 'multipleAttachments':
      return asArray(cell, attachmentText);
    case 'multipleCollaborators':
      return asArray(cell, collaboratorName);
    default:
      // formula, rollup, lookup / multipleLookupValues and anything newer: already values.
      return computedValue(cell);
  }
}

/**
 * Converts a formula result to the JSON the API returns for a formula field: dates as ISO strings,
 * errors as {error: '#ERROR!'}, NaN and infinities as {specialValue}, true as true. Blank, '' and false
 * become null, which the API leaves out of a record, as it does an empty text or an unchecked checkbox.
 */
export function formulaValueToCell(value: FormulaValue): unknown {
  if (value === null || value === false || value === '') return null;
  return toCell(value);
}

function toCell(value: FormulaValue): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return { specialValue: 'NaN' };
    if (value === Number.POSITIVE_INFINITY) return { specialValue: 'Infinity' };
    if (value === Number.NEGATIVE_INFINITY) return { specialValue: '-Infinity' };
    return Object.is(value, -0) ? 0 : value;
  }
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (Array.isArray(value)) return value.map(toCell);
  return { error: value.code };
}
