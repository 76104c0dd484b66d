// Logging to stderr only: stdout belongs to the stdio MCP transport. One JSON object per line, secrets masked.

import { redact } from './secrets.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

function threshold(): number {
  const level = (process.env.SWITCHBOARD_LOG_LEVEL ?? 'info') as LogLevel;
  return ORDER[level] ?? ORDER.info;
}

export function log(level: LogLevel, msg: string, fields: Record<string, unknown> = {}): void {
  if (ORDER[level] < threshold()) return;
  const line = JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields });
  process.stderr.write(`${redact(line)}\n`);
}
