/**
 * The contacts area (the desk's customers): GetContacts pages by position, GetContact reads one by id, and
 * SearchContacts filters them with the upstream's filter language (contactFilter.ts), paged the same way.
 */
import type { Hono } from 'hono';
import type { EmulatorEnv } from '../../../../emulation/env.js';
import { route } from '../../../../emulation/operations.js';
import { parseLimit } from '../../../../emulation/pagination.js';
import { ISSUEDESK_OPERATIONS } from '../../endpoints.js';
import { matchesContact, parseContactFilter } from '../contactFilter.js';
import { errors } from '../errors.js';
import { parseSearchContactsBody } from '../requestBodies.js';
import { contactToWire } from '../wire.js';
import {
  type Ctx,
  createArea,
  dataResponse,
  found,
  listResponse,
  nextPositionCursor,
  param,
  positionAfter,
  positionList,
  type RouteDeps,
  readJsonObject,
  valid,
} from './common.js';

export function contactsRoutes({ database }: RouteDeps): Hono<EmulatorEnv> {
  const area = createArea();

  function getContacts(c: Ctx) {
    return positionList(
      c,
      'contacts',
      (afterPos: number, limit: number) => database.contactsAfter(afterPos, limit),
      contactToWire,
    );
  }

  function getContact(c: Ctx) {
    return dataResponse(c, contactToWire(found(database.contact(param(c, 'id')), errors.contactNotFound)));
  }

  async function searchContacts(c: Ctx) {
    const request = valid(parseSearchContactsBody(await readJsonObject(c)));
    const filter = valid(parseContactFilter(request.filter));
    const limit = valid(parseLimit(request.limit));
    const afterPos = positionAfter('contacts', request.cursor);
    const matches = database
      .allContacts()
      .filter((contact) => contact.pos > afterPos && matchesContact(filter, contact));
    const page = { items: matches.slice(0, limit), hasMore: matches.length > limit };
    return listResponse(c, page.items.map(contactToWire), nextPositionCursor('contacts', page));
  }

  route(area, ISSUEDESK_OPERATIONS.GetContacts, getContacts);
  route(area, ISSUEDESK_OPERATIONS.GetContact, getContact);
  return route(area, ISSUEDESK_OPERATIONS.SearchContacts, searchContacts);
}
