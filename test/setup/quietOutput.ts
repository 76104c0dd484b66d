// Keeps `vitest run` quiet while tests pass. What runs inside the tests writes to stderr directly (the servers'
// JSON log lines, and child processes' output that the e2e harnesses forward), so vitest's `silent` cannot hold it
// back. Here each test's stderr is held and printed only when that test fails, or when a hook of its file fails.
// SWITCHBOARD_TEST_OUTPUT=all lets everything through as it is written (for debugging a passing test).

import { afterAll, beforeEach } from 'vitest';

type Write = typeof process.stderr.write;
type Callback = (error?: Error | null) => void;

interface Holder {
  /** The real write, for printing what was held. */
  write: Write;
  held: string[];
}

// One holder per worker process: a worker runs many test files, and each loads this file again.
const KEY = Symbol.for('switchboard.test.quietOutput');
const registry = globalThis as typeof globalThis & { [KEY]?: Holder };

function install(): Holder {
  const existing = registry[KEY];
  if (existing) return existing;
  const holder: Holder = { write: process.stderr.write.bind(process.stderr), held: [] };
  process.stderr.write = ((
    chunk: string | Uint8Array,
    encodingOrCallback?: BufferEncoding | Callback,
    callback?: Callback,
  ) => {
    holder.held.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    const done = typeof encodingOrCallback === 'function' ? encodingOrCallback : callback;
    if (done) process.nextTick(done, null);
    return true;
  }) as Write;
  registry[KEY] = holder;
  return holder;
}

function flush(holder: Holder, title: string): void {
  const text = holder.held.join('');
  holder.held = [];
  if (!text) return;
  holder.write(`\n── stderr held while ${title} ──\n${text}${text.endsWith('\n') ? '' : '\n'}── end ──\n`);
}

interface TaskLike {
  type: string;
  name: string;
  result?: { state?: string };
  tasks?: TaskLike[];
}

function suiteFailed(task: TaskLike): boolean {
  return (
    task.result?.state === 'fail' || (task.tasks ?? []).some((t) => t.type === 'suite' && suiteFailed(t))
  );
}

if (process.env.SWITCHBOARD_TEST_OUTPUT !== 'all') {
  const holder = install();
  beforeEach((context) => {
    context.onTestFinished(({ task }) => {
      // Output since the last passing test belongs to this one (its beforeAll hooks included).
      if (task.result?.state === 'fail') flush(holder, `"${task.fullName}" ran (it failed)`);
      else holder.held = [];
    });
  });
  // Registered first, so it runs after the file's own afterAll hooks: their output is held too.
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads hook parameters as fixtures and wants a pattern first.
  afterAll(({}, suite) => {
    if (suiteFailed(suite)) flush(holder, `${suite.name} ran (a hook failed)`);
    else holder.held = [];
  });
}
