// Every documented size limit, at the bound and one byte (or item) over it, counted in UTF-8 bytes: identifiers
// 150 B (path and body), attribute names 150 B and values 1000 B, 300 attributes, event names 100 B, event data
// 100,000 B, v2 entity 32 KB, batch 500 KB with 32 KB per operation, and 1000 segment ids.
import { afterAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../../../src/services/messaging/schemas.js';
import { call, makeEmulator, ofBytes, person, state } from './helpers.js';

const emulator = makeEmulator();
afterAll(() => emulator.close());

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/**
 * Serializes `make(attributes)` to exactly `target` bytes by adding padding attributes (each value at most
 * 1000 bytes, as the attribute rule requires).
 */
function sized(target: number, make: (padding: Record<string, string>) => unknown, prefix = 'p'): string {
  const padding: Record<string, string> = {};
  for (let i = 0; ; i++) {
    const key = `${prefix}${i}`;
    padding[key] = '';
    const room = target - bytes(JSON.stringify(make(padding)));
    if (room < 0) throw new Error(`cannot reach ${target} bytes`);
    if (room <= LIMITS.attributeValueBytes) {
      padding[key] = 'x'.repeat(room);
      const text = JSON.stringify(make(padding));
      if (bytes(text) !== target) throw new Error('sizing went wrong');
      return text;
    }
    padding[key] = 'x'.repeat(LIMITS.attributeValueBytes);
  }
}

describe('identifiers: 150 bytes', () => {
  it('a path identifier of 150 bytes (2-byte characters) is fine; 151 is a 400', async () => {
    const atLimit = ofBytes(150, true);
    expect(bytes(atLimit)).toBe(150);
    const ok = await call(emulator, 'PUT', `/api/v1/customers/${encodeURIComponent(atLimit)}`, { body: {} });
    expect(ok.status).toBe(200);
    expect((await person(emulator, atLimit)).id).toBe(atLimit);
    const over = ofBytes(151, true);
    const res = await call(emulator, 'PUT', `/api/v1/customers/${encodeURIComponent(over)}`, { body: {} });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ meta: { errors: ['identifier is 151 bytes; the limit is 150 bytes'] } });
    for (const [method, suffix] of [
      ['DELETE', ''],
      ['POST', '/events'],
      ['POST', '/suppress'],
    ] as const) {
      const other = await call(emulator, method, `/api/v1/customers/${ofBytes(151)}${suffix}`, {
        body: { name: 'x' },
      });
      expect(other.status, `${method} ${suffix}`).toBe(400);
    }
  });

  it('a body id of 150 bytes is fine; 151 is a 400 (v1) or a field error (v2)', async () => {
    const { cio_id } = await person(emulator, 'user-1');
    expect(
      (await call(emulator, 'PUT', `/api/v1/customers/cio_${cio_id}`, { body: { id: ofBytes(150) } })).status,
    ).toBe(200);
    const v1 = await call(emulator, 'PUT', `/api/v1/customers/cio_${cio_id}`, { body: { id: ofBytes(151) } });
    expect(v1.body).toEqual({ meta: { errors: ['id: must be at most 150 bytes (UTF-8)'] } });
    const v2 = await call(emulator, 'POST', '/api/v2/entity', {
      body: { type: 'person', identifiers: { id: ofBytes(151) }, action: 'identify' },
    });
    expect(v2.status).toBe(400);
    expect(v2.body.errors).toEqual([
      { reason: 'too_large', field: 'identifiers.id', message: 'must be at most 150 bytes (UTF-8)' },
    ]);
  });
});

describe('attributes: names 150 bytes, values 1000 bytes, 300 per call', () => {
  const identify = (body: unknown) => call(emulator, 'PUT', '/api/v1/customers/attr-limits', { body });

  it('names', async () => {
    expect((await identify({ [ofBytes(150, true)]: 1 })).status).toBe(200);
    const res = await identify({ [ofBytes(151, true)]: 1 });
    expect(res.status).toBe(400);
    expect(res.body.meta.errors[0]).toMatch(/attribute name longer than 150 bytes/);
  });

  it('values', async () => {
    expect((await identify({ bio: ofBytes(1000, true) })).status).toBe(200);
    const res = await identify({ bio: ofBytes(1001, true) });
    expect(res.body).toEqual({ meta: { errors: ['bio: attribute value longer than 1000 bytes'] } });
    expect((await person(emulator, 'attr-limits')).attributes.bio).toBe(ofBytes(1000, true));
  });

  it('count: 300 attributes (reserved fields not counted) is fine, 301 is not', async () => {
    const attrs = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`a${i}`, i]));
    expect((await identify({ ...attrs(300), email: 'attr-limits@example.com', created_at: 1 })).status).toBe(
      200,
    );
    const res = await identify(attrs(301));
    expect(res.body).toEqual({ meta: { errors: ['at most 300 attributes per call; got 301'] } });
    const v2 = await call(emulator, 'POST', '/api/v2/entity', {
      body: {
        type: 'person',
        identifiers: { id: 'attr-limits' },
        action: 'identify',
        attributes: attrs(301),
      },
    });
    expect(v2.body.errors).toEqual([
      { reason: 'too_large', field: 'attributes', message: 'at most 300 attributes per call; got 301' },
    ]);
  });

  it('form fields count as attributes too', async () => {
    const submit = (data: Record<string, string>) =>
      call(emulator, 'POST', '/api/v1/forms/limits/submit', {
        body: { data: { id: 'form-limits', ...data } },
      });
    expect((await submit({ note: ofBytes(1000) })).status).toBe(204);
    expect((await submit({ note: ofBytes(1001) })).body.meta.errors).toEqual([
      'data.note: attribute value longer than 1000 bytes',
    ]);
    expect((await submit({ id: ofBytes(151) })).body.meta.errors).toEqual([
      'data.id: must be at most 150 bytes (UTF-8)',
    ]);
  });
});

describe('events: names 100 bytes, data 100,000 bytes', () => {
  const track = (body: unknown) => call(emulator, 'POST', '/api/v1/customers/event-limits/events', { body });

  it('names', async () => {
    expect((await track({ name: ofBytes(100, true) })).status).toBe(200);
    expect((await track({ name: ofBytes(101, true) })).body).toEqual({
      meta: { errors: ['name: must be at most 100 bytes (UTF-8)'] },
    });
    const anonymous = await call(emulator, 'POST', '/api/v1/events', {
      body: { name: ofBytes(101), anonymous_id: 'a' },
    });
    expect(anonymous.status).toBe(400);
  });

  it('data', async () => {
    const data = (n: number) => ({ blob: 'x'.repeat(n - bytes('{"blob":""}')) });
    expect(bytes(JSON.stringify(data(100_000)))).toBe(100_000);
    expect((await track({ name: 'big', data: data(100_000) })).status).toBe(200);
    const res = await track({ name: 'too big', data: data(100_001) });
    expect(res.body).toEqual({ meta: { errors: ['data: event data is 100001 bytes; the limit is 100000'] } });
    expect((await state(emulator, 'events', 'person=event-limits&name=too big')).length).toBe(0);
  });
});

describe('v2 sizes', () => {
  const op = (padding: Record<string, string>, id = 'size-limits') => ({
    type: 'person',
    identifiers: { id },
    action: 'identify',
    attributes: padding,
  });

  it('/entity: must be smaller than 32 KB, so one byte less is fine and exactly 32 KB is a 400 too_large', async () => {
    const under = sized(LIMITS.entityRequestBytes - 1, (p) => op(p));
    expect((await call(emulator, 'POST', '/api/v2/entity', { rawBody: under })).status).toBe(200);
    const atLimit = sized(LIMITS.entityRequestBytes, (p) => op(p, 'entity-at-limit'));
    const res = await call(emulator, 'POST', '/api/v2/entity', { rawBody: atLimit });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      {
        reason: 'too_large',
        field: '',
        message:
          'the request is 32768 bytes; the limit is 32768 and the request must be smaller than the limit',
      },
    ]);
    expect(await person(emulator, 'entity-at-limit')).toBeNull();
  });

  it('/batch: each operation up to 32 KB; a bigger one fails alone (207)', async () => {
    const big = JSON.parse(sized(LIMITS.entityRequestBytes, (p) => op(p, 'op-at-limit'))) as unknown;
    const bigger = JSON.parse(sized(LIMITS.entityRequestBytes + 1, (p) => op(p, 'op-over'))) as unknown;
    const res = await call(emulator, 'POST', '/api/v2/batch', { body: { batch: [big, bigger] } });
    expect(res.status).toBe(207);
    expect(res.body.errors).toEqual([
      {
        batch_index: 1,
        reason: 'too_large',
        field: '',
        message: 'this operation is 32769 bytes; the limit is 32768',
      },
    ]);
    expect(await person(emulator, 'op-at-limit')).not.toBeNull();
    expect(await person(emulator, 'op-over')).toBeNull();
  });

  it('/batch: must be smaller than 500 KB in all; exactly 500 KB is a 400 for the whole request', async () => {
    const build = (total: number) => {
      const ops: string[] = [];
      // Full operations of 30,000 bytes, then one that brings the request to exactly `total` bytes.
      const envelope = bytes('{"batch":[]}');
      while (total - envelope - ops.reduce((n, o) => n + bytes(o) + 1, 0) > 31_000) {
        ops.push(sized(30_000, (p) => op(p, `bulk-${ops.length}`), `k${ops.length}_`));
      }
      const used = envelope + ops.reduce((n, o) => n + bytes(o) + 1, 0);
      ops.push(sized(total - used, (p) => op(p, `bulk-${ops.length}`), `k${ops.length}_`));
      const text = `{"batch":[${ops.join(',')}]}`;
      expect(bytes(text)).toBe(total);
      return { text, count: ops.length };
    };
    const under = build(LIMITS.batchRequestBytes - 1);
    const ok = await call(emulator, 'POST', '/api/v2/batch', { rawBody: under.text });
    expect(ok.status).toBe(200);
    expect((await state(emulator, 'batches')).at(-1)).toMatchObject({
      operations: under.count,
      accepted: under.count,
    });
    const atLimit = build(LIMITS.batchRequestBytes);
    const res = await call(emulator, 'POST', '/api/v2/batch', { rawBody: atLimit.text });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      {
        reason: 'too_large',
        field: '',
        message:
          'the batch is 512000 bytes; the limit is 512000 and the batch must be smaller than the limit',
      },
    ]);
    expect((await state(emulator, 'batches')).at(-1)).toMatchObject({ status: 400, operations: 0 });
  });
});

describe('segments: 1000 ids per request', () => {
  it('1000 is fine, 1001 is a 400', async () => {
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `user-${i + 1}`);
    expect(
      (await call(emulator, 'POST', '/api/v1/segments/2/add_customers', { body: { ids: ids(1000) } })).status,
    ).toBe(200);
    const res = await call(emulator, 'POST', '/api/v1/segments/2/add_customers', {
      body: { ids: ids(1001) },
    });
    expect(res.status).toBe(400);
    expect(res.body.meta.errors[0]).toMatch(/^ids: /);
  });
});
