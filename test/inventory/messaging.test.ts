// Inventory: the MessagingTrackApi tools are exactly the spec's 17, with its parameter names, types, required
// flags and defaults, and the spec's [M] tools take `mode` and `request_body`. The expectations are transcribed
// below; when the spec sits beside the repository, a second test reads its table and checks the transcription.

import { describe, expect, it } from 'vitest';
import { effectiveHints } from '../../src/runtime/hints.js';
import { buildToolSet } from '../../src/runtime/toolset.js';
import { createMessagingRuntime } from '../../src/services/messaging/service.js';
import {
  type ExpectedParams,
  expectToolInput,
  expectTranscription,
  readSchemaModeTools,
  readToolTable,
  specAvailable,
} from './specTable.js';

const s = (required = false) => ({ kind: 'string' as const, required });
const schemaMode: ExpectedParams = {
  mode: { kind: 'enum', required: true, enumValues: ['get_request_schema', 'execute'] },
  request_body: s(),
};
const idType = {
  kind: 'enum' as const,
  required: false,
  enumValues: ['id', 'email', 'msg_id'],
  default: 'id',
};

const EXPECTED: Record<string, ExpectedParams> = {
  GetTrackApiRegion: {},
  UpdateOrAddPerson: { ...schemaMode, person_identifier: s() },
  DeleteCustomer: { customer_identifier: s(true) },
  AddDeviceToCustomerProfile: { ...schemaMode, unique_person_identifier: s() },
  RemoveCustomerDevice: { customer_identifier: s(true), device_unique_id: s(true) },
  SuppressCustomerProfile: { unique_person_identifier: s(true) },
  UnsuppressCustomerProfile: { customer_identifier: s(true) },
  GlobalUnsubscribeUser: {
    delivery_id_for_unsubscription: s(true),
    set_unsubscribed_attribute: { kind: 'boolean', required: false },
  },
  SendCustomerEvent: { ...schemaMode, customer_identifier: s() },
  TrackAnonymousEvent: { ...schemaMode },
  SubmitFormResponse: { ...schemaMode, form_identifier: s() },
  MergeCustomerProfiles: { ...schemaMode },
  ReportCustomMetrics: { ...schemaMode },
  AddPeopleToSegment: {
    ...schemaMode,
    segment_identifier: { kind: 'integer', required: false },
    identifier_type: idType,
  },
  RemoveUserFromSegment: {
    ...schemaMode,
    segment_identifier: { kind: 'integer', required: false },
    identification_type: idType,
  },
  ManageEntity: { ...schemaMode },
  BatchProcessRequests: { ...schemaMode },
};

const SCHEMA_MODE_TOOLS = Object.keys(EXPECTED).filter((name) => 'mode' in EXPECTED[name]!);

const toolSet = buildToolSet([
  createMessagingRuntime({ region: 'us', siteId: () => undefined, apiKey: () => undefined }),
]);

describe('MessagingTrackApi inventory', () => {
  it('has exactly the 17 spec tools, dotted and prefixed; 11 of them in schema mode', () => {
    expect(toolSet.tools.map((tool) => tool.name).sort()).toEqual(
      Object.keys(EXPECTED)
        .map((name) => `MessagingTrackApi.${name}`)
        .sort(),
    );
    expect(SCHEMA_MODE_TOOLS).toHaveLength(11);
  });

  for (const [name, params] of Object.entries(EXPECTED)) {
    it(`${name}: parameters, types, required, defaults, enums`, () => {
      expectToolInput(name, toolSet.byName.get(`MessagingTrackApi.${name}`)!.listEntry.inputSchema, params);
    });
  }

  it('annotations are set deliberately: reads, deletions and irreversible changes', () => {
    const published = (name: string) =>
      toolSet.byName.get(`MessagingTrackApi.${name}`)!.listEntry.annotations;
    // As a client reads them: a hint left out is MCP's default.
    const hints = (name: string) => effectiveHints(published(name));
    expect(published('GetTrackApiRegion')).toEqual({ readOnlyHint: true });
    for (const name of [
      'DeleteCustomer',
      'SuppressCustomerProfile',
      'RemoveCustomerDevice',
      'MergeCustomerProfiles',
      'ManageEntity',
      'BatchProcessRequests',
    ]) {
      expect(hints(name), name).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    }
    for (const name of [
      'SendCustomerEvent',
      'TrackAnonymousEvent',
      'ReportCustomMetrics',
      'SubmitFormResponse',
    ]) {
      expect(hints(name), name).toMatchObject({ destructiveHint: false, idempotentHint: false });
    }
    for (const tool of toolSet.tools) {
      expect(effectiveHints(tool.listEntry.annotations).openWorldHint, tool.name).toBe(true);
    }
  });

  it.runIf(specAvailable('messaging-track.md'))(
    'the transcription above matches the spec table itself',
    () => {
      // The spec's table leaves mode and request_body to its [M] convention, and writes identifier_type as a
      // string "one of" three values: both are checked against the transcription here.
      const table = readToolTable('messaging-track.md');
      expect(readSchemaModeTools('messaging-track.md').sort()).toEqual([...SCHEMA_MODE_TOOLS].sort());
      const relaxed = Object.fromEntries(
        Object.entries(EXPECTED).map(([name, params]) => [
          name,
          Object.fromEntries(
            Object.entries(params).map(([key, p]) =>
              key.endsWith('_type') ? [key, { kind: 'string' as const, required: false }] : [key, p],
            ),
          ),
        ]),
      );
      expectTranscription(table, relaxed, ['mode', 'request_body']);
    },
  );
});
