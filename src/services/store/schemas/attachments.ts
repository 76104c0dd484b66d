// Upload of a small file straight into an attachment cell, as base64 text. Larger files go into the cell as
// [{url}] through a record update instead.

import { z } from 'zod';

/** Largest file the upload accepts, in bytes after base64 decoding. */
export const ATTACHMENT_MAX_BYTES = 5 * 1024 * 1024;
/** Base64 text length that can hold ATTACHMENT_MAX_BYTES: the bound JSON Schema can state. */
export const ATTACHMENT_MAX_BASE64_CHARS = Math.ceil(ATTACHMENT_MAX_BYTES / 3) * 4;

// The alphabet and trailing padding, for JSON Schema. A pattern that also counts characters in fours
// ((?:[A-Za-z0-9+/]{4})*) overflows the regex stack of JavaScript engines on megabyte inputs, so the length rule
// is zod's alone (base64Problem).
const BASE64_PATTERN = '^[A-Za-z0-9+/]*={0,2}$';

/** Why `text` is not standard padded base64, or undefined when it is. Linear scan: files run to megabytes. */
export function base64Problem(text: string): string | undefined {
  if (text.length % 4 !== 0) {
    return `base64 text length must be a multiple of 4 (pad with =); got ${text.length} characters`;
  }
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  for (let index = 0; index < text.length - padding; index += 1) {
    const code = text.charCodeAt(index);
    const ok =
      (code >= 65 && code <= 90) || // A-Z
      (code >= 97 && code <= 122) || // a-z
      (code >= 48 && code <= 57) || // 0-9
      code === 43 || // +
      code === 47; // /
    if (!ok) {
      const shown = JSON.stringify(text[index]);
      return `not base64: character ${shown} at position ${index} (standard alphabet A-Z a-z 0-9 + /, no line breaks)`;
    }
  }
  return undefined;
}

/** Bytes that padded base64 text decodes to. */
export function decodedBase64Size(text: string): number {
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  return (text.length / 4) * 3 - padding;
}

const file = z
  .string()
  .min(1, { error: 'the file must not be empty' })
  .superRefine((text, ctx) => {
    const problem = base64Problem(text);
    if (problem) {
      ctx.addIssue({ code: 'custom', message: problem, path: [] });
      return;
    }
    const size = decodedBase64Size(text);
    if (size > ATTACHMENT_MAX_BYTES) {
      ctx.addIssue({
        code: 'custom',
        message:
          `the file is ${size} bytes; uploads are limited to ${ATTACHMENT_MAX_BYTES} bytes (5 MB). ` +
          'For a larger file, put a public URL in the attachment cell ([{url}]) with a record update.',
        path: [],
      });
    }
  })
  .meta({
    description: `File content, base64 (standard alphabet, padded). At most ${ATTACHMENT_MAX_BYTES} bytes (5 MB) once decoded.`,
    pattern: BASE64_PATTERN,
    maxLength: ATTACHMENT_MAX_BASE64_CHARS,
  });

const MEDIA_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*(?:\s*;.*)?$/;

export const uploadAttachmentBody = z
  .strictObject({
    contentType: z
      .string()
      .regex(MEDIA_TYPE, { error: 'must be a media type like image/png or application/pdf' })
      .meta({ description: 'Media type of the file, e.g. image/png.' }),
    file,
    filename: z
      .string()
      .min(1, { error: 'the filename must not be empty' })
      .meta({ description: 'File name shown in the cell, e.g. photo.png.' }),
  })
  .meta({
    title: 'Upload an attachment',
    description: 'Appends the file to the attachment cell of the record.',
    examples: [{ contentType: 'text/plain', file: 'SGVsbG8sIHdvcmxkIQ==', filename: 'hello.txt' }],
  });
