// search_tools ranking (runtime/toolSearch.ts) over the real 126 tools: plain-language tasks, each with its tool,
// must find that tool in the top 3 for at least 95% of them, in each set. tasks.json was written before the ranking
// was tuned, and never edited to pass. heldout/a-c.json were written later by separate sessions from the
// specifications alone, seeing neither the ranker, its vocabulary, the services' search terms nor each other; the
// search terms' weight and the reading of emails and identifiers were chosen while looking at sets A and B; set C
// was first scored after that (top 3: 97.6%), and its misses then led to three general fixes ("how many", "signup",
// a misleading search term). The test prints each set's hit rates and every miss with what ranked above it.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { discoveryToolSet } from '../../src/runtime/discovery.js';
import { runToolCall } from '../../src/runtime/mcpServer.js';
import { buildToolSet, type ToolSet } from '../../src/runtime/toolset.js';
import { SERVICES } from '../../src/services/registry.js';

interface Task {
  task: string;
  tool: string;
}

const read = (file: string) =>
  (JSON.parse(readFileSync(new URL(file, import.meta.url), 'utf8')) as { tasks: Task[] }).tasks;
const tasks = read('./tasks.json');
const SETS: Record<string, Task[]> = {
  'tasks.json': tasks,
  'heldout/a.json': read('./heldout/a.json'),
  'heldout/b.json': read('./heldout/b.json'),
  'heldout/c.json': read('./heldout/c.json'),
};

// Runtimes from an empty environment: searching never calls an upstream.
const runtimes = SERVICES.map((service) =>
  service.runtimeFromEnv({ SWITCHBOARD_CREDENTIALS_FILE: '/nonexistent' }),
);

async function search(view: ToolSet, query: string, limit: number): Promise<string[]> {
  const result = await runToolCall(
    view,
    view.byName.get('search_tools')!,
    { query, limit },
    {
      signal: new AbortController().signal,
    },
  );
  expect(result.isError).toBeUndefined();
  return (result.structuredContent as { tools: { name: string }[] }).tools.map((tool) => tool.name);
}

describe('the discovery fixture', () => {
  it('tasks.json covers every tool with at least 150 tasks; every set names served tools only', () => {
    const all = new Set(buildToolSet(runtimes).tools.map((tool) => tool.specName));
    expect(tasks.length).toBeGreaterThanOrEqual(150);
    expect(new Set(tasks.map((task) => task.tool))).toEqual(all);
    for (const [name, set] of Object.entries(SETS)) {
      expect(
        set.filter((task) => !all.has(task.tool)),
        name,
      ).toEqual([]);
    }
  });

  it.each(Object.keys(SETS))(
    '%s: the right tool in the top 3 for at least 95% of the tasks',
    async (name) => {
      const set = SETS[name]!;
      const view = discoveryToolSet(buildToolSet(runtimes));
      let top1 = 0;
      let top3 = 0;
      const misses: string[] = [];
      for (const { task, tool } of set) {
        const names = await search(view, task, 3);
        if (names[0] === tool) top1++;
        if (names.includes(tool)) top3++;
        else misses.push(`  "${task}"\n    wanted ${tool}, got ${names.join(', ') || 'nothing'}`);
      }
      const rate = (hits: number) => `${((100 * hits) / set.length).toFixed(1)}%`;
      process.stdout.write(
        `search_tools over ${name}, ${set.length} tasks: top-1 ${top1} (${rate(top1)}), top-3 ${top3} (${rate(top3)})\n` +
          (misses.length > 0 ? `misses (not in the top 3):\n${misses.join('\n')}\n` : ''),
      );
      expect(top3 / set.length).toBeGreaterThanOrEqual(0.95);
    },
  );
});
