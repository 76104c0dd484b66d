// Tool names in the client's style: known spec names are rewritten everywhere the server writes them (instructions,
// tools/list texts, errors), other dotted words are left alone, and the dotted style changes nothing.

import { describe, expect, it } from 'vitest';
import { ToolError } from '../../src/runtime/errors.js';
import { styledToolName, toolNameRewriter } from '../../src/runtime/toolNames.js';
import { buildToolSet } from '../../src/runtime/toolset.js';
import { createIssueDeskRuntime } from '../../src/services/issuedesk/service.js';
import { createStoreRuntime } from '../../src/services/store/service.js';

const NAMES = ['IssueDesk.SearchIssues', 'IssueDesk.ListIssues', 'StoreApi.ListStoreRecords'];

describe('toolNameRewriter', () => {
  it('rewrites only known tool names', () => {
    const rewrite = toolNameRewriter(NAMES, 'underscore');
    expect(
      rewrite(
        'Find it with IssueDesk.SearchIssues or IssueDesk.ListIssues. Not IssueDesk.Nothing, example.com, v0.1, StoreApi.ListStoreRecordsX or IssueDesk.SearchIssues_.',
      ),
    ).toBe(
      'Find it with IssueDesk_SearchIssues or IssueDesk_ListIssues. Not IssueDesk.Nothing, example.com, v0.1, StoreApi.ListStoreRecordsX or IssueDesk.SearchIssues_.',
    );
    expect(rewrite('`StoreApi.ListStoreRecords`, (IssueDesk.ListIssues)')).toBe(
      '`StoreApi_ListStoreRecords`, (IssueDesk_ListIssues)',
    );
  });

  it('leaves texts alone in the dotted style', () => {
    const text = 'Find it with IssueDesk.SearchIssues.';
    expect(toolNameRewriter(NAMES, 'dotted')(text)).toBe(text);
    expect(styledToolName('IssueDesk.AssignIssue', 'dotted')).toBe('IssueDesk.AssignIssue');
    expect(styledToolName('IssueDesk.AssignIssue', 'underscore')).toBe('IssueDesk_AssignIssue');
  });

  it('rewrites an error’s message, hint and issues without touching the rest', () => {
    const error = new ToolError({
      kind: 'not_found',
      message: 'See IssueDesk.ListIssues',
      hint: 'Use IssueDesk.SearchIssues',
      issues: [{ field: 'value', problem: 'try IssueDesk.SearchIssues' }],
      status: 404,
      upstreamCode: 'X',
    });
    const styled = error.mapText(toolNameRewriter(NAMES, 'underscore'));
    expect(styled.toJSON()).toEqual({
      kind: 'not_found',
      message: 'See IssueDesk_ListIssues',
      hint: 'Use IssueDesk_SearchIssues',
      issues: [{ field: 'value', problem: 'try IssueDesk_SearchIssues' }],
      status: 404,
      upstream_code: 'X',
      retryable: false,
    });
  });
});

describe('ToolSet in the underscore style', () => {
  const services = [
    createIssueDeskRuntime({ token: () => undefined }),
    createStoreRuntime({ token: () => undefined }),
  ];

  it('names no dotted tool in its instructions or tools/list, and only known names changed', () => {
    const dotted = buildToolSet(services);
    const underscore = buildToolSet(services, { nameStyle: 'underscore' });
    const pattern = /\b(IssueDesk|StoreApi)\.[A-Z][A-Za-z]+/g;
    expect(dotted.instructions).toMatch(pattern);
    expect(underscore.instructions).not.toMatch(pattern);
    expect(underscore.instructions).toContain('IssueDesk_SearchIssues');
    expect(underscore.instructions).toContain('StoreApi_GetStoreBaseSchema');
    expect(JSON.stringify(underscore.listEntries)).not.toMatch(pattern);
    // Apart from the names, the texts are the same.
    expect(underscore.instructions.replace(/_(?=[A-Z])/g, '.')).toBe(dotted.instructions);
    expect(underscore.rewriteToolNames('IssueDesk.ListIssues')).toBe('IssueDesk_ListIssues');
  });
});
