// The Track emulator on a real socket: the URLs it reports, the region lookup and the US->EU redirect through
// fetch, the request log, and the official customerio-node client pointed at the account's host.
import { TrackClient } from 'customerio-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type RunningMessagingEmulator,
  startMessagingEmulator,
} from '../../../../src/services/messaging/emulator/app.js';
import { basic, type Loose } from './helpers.js';

let running: RunningMessagingEmulator;
let auth: string;

beforeAll(async () => {
  running = await startMessagingEmulator({
    scale: 20,
    region: 'eu',
    siteId: 'loop_site',
    apiKey: 'loop_key',
  });
  auth = basic(running.siteId, running.apiKey);
});
afterAll(async () => {
  await running?.close();
});

async function api(
  url: string,
  init: RequestInit = {},
): Promise<{ status: number; body: Loose; headers: Headers }> {
  const res = await fetch(url, { ...init, headers: { authorization: auth, ...init.headers } });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}

describe('Track emulator over a loopback socket', () => {
  it('reports its US root, EU root and the account root', () => {
    expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(running.euUrl).toBe(`${running.url}/eu`);
    expect(running.accountUrl).toBe(running.euUrl);
    expect(running).toMatchObject({ siteId: 'loop_site', apiKey: 'loop_key', region: 'eu' });
  });

  it('answers the region lookup on both hosts with the EU root of this listener', async () => {
    for (const root of [running.url, running.euUrl]) {
      const res = await api(`${root}/api/v1/accounts/region`);
      expect(res.body).toMatchObject({ url: running.euUrl, region: 'eu' });
    }
  });

  it('redirects US-host traffic to the EU host with an absolute Location; fetch follows it', async () => {
    const manual = await fetch(`${running.url}/api/v1/customers/loop%2F1?x=1`, {
      method: 'PUT',
      redirect: 'manual',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(manual.status).toBe(307);
    expect(manual.headers.get('location')).toBe(`${running.euUrl}/api/v1/customers/loop%2F1?x=1`);
    const followed = await api(`${running.url}/api/v1/customers/loop-2`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ via: 'redirect' }),
    });
    expect(followed.status).toBe(200);
    const stored = await fetch(`${running.url}/_emulator/state/people/loop-2`);
    expect(((await stored.json()) as Loose).attributes).toEqual({ via: 'redirect' });
  });

  it('logs requests as sent, still percent-encoded, without credentials', async () => {
    const log = (await (await fetch(`${running.url}/_emulator/requests`)).json()) as Loose;
    const paths = log.requests.map((r: { path: string }) => r.path);
    expect(paths).toContain('/api/v1/customers/loop%2F1');
    expect(paths).toContain('/eu/api/v1/customers/loop-2');
    expect(JSON.stringify(log)).not.toContain('loop_key');
  });

  it('works with customerio-node pointed at the account host', async () => {
    const cio = new TrackClient(running.siteId, running.apiKey, { url: `${running.accountUrl}/api/v1` });
    await cio.identify('node-1', { email: 'node-1@example.com', plan: 'pro' });
    await cio.track('node-1', { name: 'purchase', data: { amount: 3 } });
    const person = (await (await fetch(`${running.url}/_emulator/state/people/node-1`)).json()) as Loose;
    expect(person).toMatchObject({
      email: 'node-1@example.com',
      attributes: { plan: 'pro' },
      event_count: 1,
    });
    const wrong = new TrackClient(running.siteId, 'nope', { url: `${running.accountUrl}/api/v1` });
    await expect(wrong.identify('node-2', {})).rejects.toMatchObject({ statusCode: 401 });
    await expect(cio.track('node-1', { name: 'x'.repeat(101) })).rejects.toMatchObject({
      statusCode: 400,
      message: expect.stringContaining('name: must be at most 100 bytes'),
    });
  });
});
