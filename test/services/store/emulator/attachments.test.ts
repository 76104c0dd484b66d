// uploadAttachment: base64 up to 5 MB appended to the cell, answered keyed by field id, and the bytes served
// back at the attachment's url with their type and size; the size limits (422 over 5 MB decoded, 413 over the
// body limit) and the errors for unknown records and non-attachment fields.
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_UPLOAD_BODY_BYTES } from '../../../../src/services/store/emulator/app.js';
import { call, ids, type Loose, makeEmulator } from './helpers.js';

const emulator = makeEmulator();
afterAll(() => emulator.close());

const features = ids(emulator, 'Product Roadmap', 'Features');
const record = emulator.store.records(features.table).find((r) => !r.cells[features.field('Spec')])!;
const upload = (field: string, body: unknown, recordId = record.id) =>
  call(emulator, 'POST', `/v0/${features.base}/${recordId}/${encodeURIComponent(field)}/uploadAttachment`, {
    body,
  });

describe('uploadAttachment', () => {
  const bytes = Buffer.from('%PDF-1.4 hello attachment\n');

  it('appends the file to the cell and answers {id, createdTime, fields} keyed by field id', async () => {
    const res = await upload('Spec', {
      contentType: 'application/pdf',
      file: bytes.toString('base64'),
      filename: 'brief.pdf',
    });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(record.id);
    expect(res.body.createdTime).toBe(record.createdTime);
    const cell = res.body.fields[features.field('Spec')];
    expect(cell).toHaveLength(1);
    expect(cell[0]).toEqual({
      id: expect.stringMatching(/^att[A-Za-z0-9]{14}$/),
      url: `http://localhost/_files/${cell[0].id}/brief.pdf`,
      filename: 'brief.pdf',
      size: bytes.length,
      type: 'application/pdf',
    });
    const second = await upload(features.field('Spec'), {
      contentType: 'text/plain',
      file: 'aGk=',
      filename: 'hi.txt',
    });
    expect(second.body.fields[features.field('Spec')]).toHaveLength(2);
    const read = await call(emulator, 'GET', `/v0/${features.base}/${features.table}/${record.id}`);
    expect(read.body.fields.Spec.map((a: Loose) => a.filename)).toEqual(['brief.pdf', 'hi.txt']);
  });

  it('serves the bytes back at the url without a token, with type and length', async () => {
    const read = await call(emulator, 'GET', `/v0/${features.base}/${features.table}/${record.id}`);
    const attachment = read.body.fields.Spec[0];
    const res = await emulator.app.request(new URL(attachment.url).pathname);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-length')).toBe(String(bytes.length));
    expect(Buffer.from(await res.arrayBuffer())).toEqual(bytes);
    const missing = await emulator.app.request('/_files/attAAAAAAAAAAAAAA/x.pdf');
    expect(missing.status).toBe(404);
  });

  it('refuses files over 5 MB (422) and bodies over the upload limit (413)', async () => {
    const big = Buffer.alloc(5 * 1024 * 1024 + 3).toString('base64');
    const tooBig = await upload('Spec', {
      contentType: 'application/octet-stream',
      file: big,
      filename: 'big.bin',
    });
    expect(tooBig.status).toBe(422);
    expect(tooBig.body.error.type).toBe('INVALID_REQUEST_UNKNOWN');
    expect(tooBig.body.error.message).toContain('5242880');
    const huge = 'A'.repeat(MAX_UPLOAD_BODY_BYTES + 10);
    const res = await upload('Spec', {
      contentType: 'application/octet-stream',
      file: huge,
      filename: 'huge.bin',
    });
    expect(res.status).toBe(413);
    expect(res.body.error.type).toBe('REQUEST_TOO_LARGE');
    const notBase64 = await upload('Spec', {
      contentType: 'text/plain',
      file: 'not base64!',
      filename: 'x.txt',
    });
    expect(notBase64.status).toBe(422);
  });

  it('answers 404 for an unknown record and 422 for a field that is not an attachment field', async () => {
    const body = { contentType: 'text/plain', file: 'aGk=', filename: 'hi.txt' };
    expect((await upload('Spec', body, 'recAAAAAAAAAAAAAA')).status).toBe(404);
    const wrong = await upload('Name', body);
    expect(wrong.status).toBe(422);
    expect(wrong.body.error).toEqual({
      type: 'INVALID_VALUE_FOR_COLUMN',
      message: 'Field "Name" cannot accept the provided value',
    });
    const unknown = await upload('Nope', body);
    expect(unknown.body.error.type).toBe('UNKNOWN_FIELD_NAME');
  });

  it('stores a url written into an attachment cell as given, without downloading it', async () => {
    const res = await call(emulator, 'PATCH', `/v0/${features.base}/${features.table}/${record.id}`, {
      body: { fields: { Spec: [{ url: 'https://cdn.example.com/a/diagram.svg', filename: 'diagram.svg' }] } },
    });
    expect(res.body.fields.Spec).toEqual([
      {
        id: expect.stringMatching(/^att/),
        url: 'https://cdn.example.com/a/diagram.svg',
        filename: 'diagram.svg',
        type: 'image/svg+xml',
      },
    ]);
  });
});
