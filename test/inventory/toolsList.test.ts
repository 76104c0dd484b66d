// What models see, committed: tools/list (names, titles, descriptions, input schemas, annotations) for all 126
// tools in the spec's dotted names, and the server instructions, built the way the server builds them. Any change
// to them shows in review as a diff of __snapshots__/toolsList.json. To accept an intended change, run
// `npx vitest run -u test/inventory/toolsList.test.ts` and commit the updated file with the change.
// Beside the snapshot, the rules the snapshot cannot show: a fixed order, every parameter described unless its
// name says what it is, and unknown parameters refused although the published schemas leave that out.

import { describe, expect, it } from 'vitest';
import { buildToolSet } from '../../src/runtime/toolset.js';
import { validateArguments } from '../../src/runtime/validate.js';
import { SERVICES } from '../../src/services/registry.js';

// The runtimes of `serve` with no credentials: what tools/list shows does not depend on them.
const runtimes = SERVICES.map((service) =>
  service.runtimeFromEnv({ SWITCHBOARD_CREDENTIALS_FILE: '/nonexistent' }),
);

describe('tools/list', () => {
  const toolSet = buildToolSet(runtimes, { nameStyle: 'dotted' });

  it('lists all 126 tools', () => {
    expect(toolSet.listEntries).toHaveLength(126);
  });

  it('matches the committed snapshot (accept a change with `npx vitest run -u`)', async () => {
    const seen = { instructions: toolSet.instructions, tools: toolSet.listEntries };
    await expect(`${JSON.stringify(seen, null, 2)}\n`).toMatchFileSnapshot('__snapshots__/toolsList.json');
  });

  it('keeps one order: services as registered, each in its table order, whatever selects them', () => {
    // A fixed order keeps tools/list byte-identical between sessions, which prompt caching relies on.
    const tableOrder = runtimes.flatMap(({ definition }) =>
      definition.tools.map((tool) => `${definition.prefix}.${tool.name}`),
    );
    const names = (entries: readonly { name: string }[]) => entries.map((entry) => entry.name);
    expect(names(toolSet.listEntries)).toEqual(tableOrder);
    expect([...new Set(tableOrder.map((name) => name.split('.')[0]))]).toEqual([
      'IssueDesk',
      'MessagingTrackApi',
      'StoreApi',
    ]);
    expect(names(buildToolSet(runtimes, { nameStyle: 'dotted' }).listEntries)).toEqual(tableOrder);
    const readOnly = names(buildToolSet(runtimes, { readOnly: true }).listEntries);
    expect(readOnly).toEqual(tableOrder.filter((name) => readOnly.includes(name)));
    // --tools in another order still lists in table order.
    const picked = buildToolSet(runtimes, { only: ['StoreApi.ListStoreRecords', 'IssueDesk.WhoAmI'] });
    expect(names(picked.listEntries)).toEqual(['IssueDesk.WhoAmI', 'StoreApi.ListStoreRecords']);
  });

  it('describes every parameter whose name does not say what it is', () => {
    // Identifiers go undescribed (the instructions give their forms once); so do these, each for its reason.
    const identifier = /(^|_)(id|ids|identifier)$|_id_or_name$/;
    const selfExplained: Record<string, string> = {
      mode: 'its enum values, and request_body, say it',
      cursor: 'the next_cursor of the last page',
      value: 'its lookup_by says what it is',
      issue_value: 'issue_lookup_by says what it is',
      user_value: 'user_lookup_by says what it is',
      auto_accept_matches: 'the name says it; the instructions give the threshold',
      limit: 'bounds and default in the schema',
      delivery_id_for_unsubscription: 'the name says it',
      set_unsubscribed_attribute: 'the name says it',
      page_size: 'bounds and default in the schema',
      pagination_offset: 'the offset of the last page',
      results_page_size: 'bounds in the schema',
      comment_id_to_delete: 'an identifier',
      new_field_description: 'the name says it, maxLength the limit',
      new_field_name: 'the name says it',
      maximum_number_of_messages: 'bounds in the schema',
      user_count_limit: 'the name says it',
      event_category: 'the name says it',
      ediscovery_export_state: 'the name and enum say it',
      email_addresses: 'the name says it, minItems and maxItems the limits',
      user_emails: 'the name says it, maxItems the limit',
      user_first_name: 'the name says it',
      user_last_name: 'the name says it',
      invite_creation_restriction: 'the name and enum say it',
      share_creation_restriction: 'the name and enum say it',
      fields_to_retrieve: 'the name says it',
      maximum_records_to_retrieve: 'bounds in the schema',
      primary_keys_to_retrieve: 'the name says it, maxItems the limit',
    };
    const undescribed = new Set<string>();
    for (const entry of toolSet.listEntries) {
      const properties = (entry.inputSchema.properties ?? {}) as Record<string, { description?: string }>;
      for (const [name, schema] of Object.entries(properties)) {
        if (!schema.description && !identifier.test(name)) undescribed.add(name);
      }
    }
    expect([...undescribed].sort()).toEqual(Object.keys(selfExplained).sort());
  });

  it('refuses unknown parameters on every tool, naming them, though the schemas leave additionalProperties out', async () => {
    for (const tool of toolSet.tools) {
      expect(tool.listEntry.inputSchema.additionalProperties, tool.name).toBeUndefined();
      const result = validateArguments((await tool.load()).input, { not_a_parameter: 1 }, tool.name);
      expect(result.ok, tool.name).toBe(false);
      if (!result.ok) {
        expect(result.error.issues, tool.name).toContainEqual(
          expect.objectContaining({
            field: 'not_a_parameter',
            problem: expect.stringMatching(/^unknown parameter/),
          }),
        );
      }
    }
  });
});
