// No secret and no caller value in any metric label or span attribute: the store server runs behind a bearer token
// (SWITCHBOARD_HTTP_TOKEN) with its own upstream token, calls carry identifiers and a filter formula in their
// arguments, answers include a 404 and a 429; then every metric sample's labels and every span's name, attributes,
// events and status are searched for all of them.

import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallMetrics } from '../../src/runtime/metrics.js';
import { shutdownTracing, startTracing } from '../../src/runtime/tracing.js';
import { type ObservedStore, startObservedStore } from './observabilityHarness.js';

const UPSTREAM_TOKEN = 'pat_secretUpstreamToken.5b1f0c9e77d2';
const BEARER = 'bearer-secret-9d2e7a41c3f0';
const FORMULA_MARKER = 'FormulaValue8812';

let store: ObservedStore;
let metrics: CallMetrics;
const exporter = new InMemorySpanExporter();

beforeAll(async () => {
  store = await startObservedStore({ token: UPSTREAM_TOKEN, bearerToken: BEARER });
  metrics = new CallMetrics().listen();
  await startTracing({ spanProcessor: new SimpleSpanProcessor(exporter) });
});
afterAll(async () => {
  metrics?.close();
  await shutdownTracing();
  await store?.close();
});

describe('secrets and caller values stay out of metrics and traces', () => {
  it('neither token, nor an id, nor an argument value appears in a label or an attribute', async () => {
    const { baseId, tableId, recordId } = store.record;
    const call = (name: string, args: Record<string, unknown>) =>
      store.client.callTool({ name: `StoreApi.${name}`, arguments: args });
    expect(
      (
        await call('StoreGetRecord', {
          store_base_id: baseId,
          table_identifier: tableId,
          record_id: recordId,
        })
      ).isError,
    ).toBeFalsy();
    expect(
      (
        await call('ListStoreRecords', {
          base_id: baseId,
          table_id_or_name: tableId,
          filter_by_formula: `{Name}="${FORMULA_MARKER}"`,
        })
      ).isError,
    ).toBeFalsy();
    await store.upstream.faults([{ path: '/v0/*', kind: 'rate_limit', retryAfterSeconds: 0, times: 1 }]);
    await call('StoreGetRecord', { store_base_id: baseId, table_identifier: tableId, record_id: recordId });
    await call('StoreGetRecord', {
      store_base_id: baseId,
      table_identifier: tableId,
      record_id: 'recMissingRecord01',
    });

    const forbidden = [
      UPSTREAM_TOKEN,
      BEARER,
      baseId,
      tableId,
      recordId,
      FORMULA_MARKER,
      'recMissingRecord01',
    ];

    const text = (await metrics.text()).body;
    const labels = text
      .split('\n')
      .filter((line) => line.startsWith('switchboard_'))
      .map((line) => /\{(.*)\}/.exec(line)?.[1] ?? '');
    expect(labels.length).toBeGreaterThan(0);
    for (const secret of forbidden) expect(text, secret).not.toContain(secret);

    const spans = exporter.getFinishedSpans();
    // Two calls of StoreGetRecord (one retried), one list, one 404: four call spans, five attempts.
    expect(spans).toHaveLength(9);
    const recorded = JSON.stringify(
      spans.map((span) => ({
        name: span.name,
        attributes: span.attributes,
        events: span.events.map((event) => ({ name: event.name, attributes: event.attributes })),
        status: span.status,
        resource: span.resource.attributes,
      })),
    );
    for (const secret of forbidden) expect(recorded, secret).not.toContain(secret);
    // What the attempts do say: the templates, not the filled paths.
    expect(recorded).toContain('/v0/{baseId}/{tableIdOrName}/{recordId}');
    expect(recorded).toContain('/v0/{baseId}/{tableIdOrName}');
  });
});
