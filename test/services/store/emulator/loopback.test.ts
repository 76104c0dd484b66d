// The emulator on a real loopback socket: its URL and token, a round trip through fetch, and an uploaded
// attachment downloaded from the absolute url the emulator built from the request's origin.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type RunningStoreEmulator,
  startStoreEmulator,
} from '../../../../src/services/store/emulator/app.js';
import type { Loose } from './helpers.js';

let running: RunningStoreEmulator;

beforeAll(async () => {
  running = await startStoreEmulator({ token: 'pat_loopback', baseRateLimit: false });
});
afterAll(async () => {
  await running?.close();
});

async function api(path: string, init: RequestInit = {}) {
  const res = await fetch(`${running.url}${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${running.token}`,
      'content-type': 'application/json',
      ...init.headers,
    },
  });
  return { status: res.status, body: (await res.json()) as Loose };
}

describe('store emulator over a loopback socket', () => {
  it('reports its URL and token', () => {
    expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(running.token).toBe('pat_loopback');
  });

  it('serves the API and the uploaded files at absolute urls', async () => {
    const bases = await api('/v0/meta/bases');
    expect(bases.status).toBe(200);
    const base = (bases.body.bases as { id: string; name: string }[]).find(
      (b) => b.name === 'Product Roadmap',
    )!;
    const page = await api(`/v0/${base.id}/Features?maxRecords=1`);
    const recordId = (page.body.records as { id: string }[])[0]!.id;
    const upload = await api(`/v0/${base.id}/${recordId}/Spec/uploadAttachment`, {
      method: 'POST',
      body: JSON.stringify({
        contentType: 'text/plain',
        file: Buffer.from('over the wire').toString('base64'),
        filename: 'wire note.txt',
      }),
    });
    expect(upload.status).toBe(200);
    const cell = Object.values(upload.body.fields as Record<string, { url: string }[]>)[0]!;
    const url = cell.at(-1)!.url;
    expect(url.startsWith(`${running.url}/_files/`)).toBe(true);
    const file = await fetch(url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('text/plain');
    expect(await file.text()).toBe('over the wire');
  });
});
