// `serve --redis-url` and SWITCHBOARD_REDIS_URL as users give them: a malformed value stops the start with exit
// code 1 and a message naming the setting (never echoing the value, which may carry a password).

import { describe, expect, it } from 'vitest';
import { runCliToEnd as run } from './harness.js';

const SERVE = ['serve', 'issuedesk', '--sandbox', '--data-dir', ':memory:'];

describe('serve with a malformed Redis URL', () => {
  it('--redis-url that is not a redis:// URL stops the start, naming the flag and the variable', async () => {
    const { code, stderr } = await run([...SERVE, '--redis-url', 'http://user:s3cret@cache:6379']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/SWITCHBOARD_REDIS_URL \(--redis-url\) must start with redis:\/\/ or rediss:\/\//);
    expect(stderr).not.toContain('s3cret');
  });

  it('SWITCHBOARD_REDIS_URL that does not parse stops the start the same way', async () => {
    const { code, stderr } = await run(SERVE, { SWITCHBOARD_REDIS_URL: 'redis://:s3cret@' });
    expect(code).toBe(1);
    expect(stderr).toMatch(/SWITCHBOARD_REDIS_URL \(--redis-url\) is not a URL; use redis:\/\/host:6379/);
    expect(stderr).not.toContain('s3cret');
  });
});
