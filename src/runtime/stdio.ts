// The stdio wire under the SDK's serveStdio: newline-delimited JSON-RPC on stdin and stdout, with the answers and
// checks the SDK's own stdio transport leaves out. The SDK drops a line that is not JSON, not JSON-RPC, or a batch
// without a word (the client waits forever); it checks the protocol version of the first request only; and it pins
// a connection to the 2025 era on the first message without `_meta` (a ping, a notification, a tools/list), after
// which 2026-07-28 requests get -32601. Here every line is answered or delivered, every `_meta` version is checked,
// and only `initialize` opens a 2025-era connection (MCP 2026-07-28, Versioning: "An initialize request selects
// legacy semantics"). What the SDK already does well (era pinning, the probe instance, subscriptions) stays its job.

import type { Readable, Writable } from 'node:stream';
import {
  classifyInboundRequest,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type MessageExtraInfo,
  ProtocolErrorCode,
  type RequestId,
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
  type Transport,
} from '@modelcontextprotocol/server';
import { serveStdio as sdkServeStdio } from '@modelcontextprotocol/server/stdio';
import { log } from './log.js';
import { createMcpServer } from './mcpServer.js';
import {
  BATCH_PROTOCOL_VERSION,
  claimsProtocolVersion,
  errorReply,
  invalidMessage,
  isObject,
  MODERN_PROTOCOL_VERSIONS,
  readableId,
  unsupportedVersionError,
} from './protocol.js';
import type { ToolSet } from './toolset.js';

/**
 * Serves a ToolSet over stdin and stdout through the SDK's serveStdio. It lives here, not with the HTTP transport
 * (transports.ts), so that a stdio server never loads Hono and Node's fetch at start.
 */
export function serveStdio(toolSet: ToolSet): { close(): Promise<void> } {
  return sdkServeStdio((ctx) => createMcpServer(toolSet, { era: ctx.era }), {
    // Answers what the SDK's own stdio transport would drop, and keeps the era decision to initialize.
    transport: new GuardedStdioTransport(),
    onerror: (error) => log('warn', 'stdio transport error', { error: error.message }),
  });
}

/**
 * Which era the SDK's serveStdio has this connection in, mirrored from the messages handed to it (its state is not
 * public): `opening` until the first message that decides, `probe` after a 2026-07-28 `server/discover` alone,
 * `modern` after any other 2026-07-28 message, `legacy` after `initialize`.
 */
type Era = 'opening' | 'probe' | 'modern' | 'legacy';

/** A 2025-03-26 batch waiting for the SDK's answers to its requests, to be sent back as one array. */
interface Batch {
  waiting: Set<RequestId>;
  replies: unknown[];
}

const MISSING_ENVELOPE =
  'Request is missing the required _meta envelope for protocol revision 2026-07-28 ' +
  '(io.modelcontextprotocol/protocolVersion, io.modelcontextprotocol/clientCapabilities); ' +
  'a 2025-era client sends initialize first.';

export class GuardedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  private era: Era = 'opening';
  /** The 2025 revision `initialize` negotiated, once its answer has gone out. */
  private legacyVersion: string | undefined;
  private readonly initializeIds = new Set<RequestId>();
  private readonly batchOf = new Map<RequestId, Batch>();
  /** Batches that came while `initialize` was being answered: whether they may be served depends on its answer. */
  private deferredBatches: unknown[][] = [];
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Skipping the rest of a line that was already refused as too long. */
  private discarding = false;
  private started = false;
  private closed = false;

  constructor(
    private readonly stdin: Readable = process.stdin,
    private readonly stdout: Writable = process.stdout,
    private readonly maxLineBytes: number = STDIO_DEFAULT_MAX_BUFFER_SIZE,
  ) {}

  async start(): Promise<void> {
    if (this.started) throw new Error('GuardedStdioTransport already started');
    this.started = true;
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onStdinError);
    this.stdin.on('end', this.onEnd);
    this.stdin.on('close', this.onEnd);
    // Stays attached after close: a client that hung up makes late writes fail with EPIPE, which must not crash.
    this.stdout.on('error', this.onStdoutError);
    if (this.stdin.readableEnded || this.stdin.destroyed) setImmediate(this.onEnd);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) {
      const id = message.id;
      if (id !== undefined && this.initializeIds.delete(id)) {
        const version = isJSONRPCResultResponse(message)
          ? (message.result as { protocolVersion?: unknown }).protocolVersion
          : undefined;
        if (typeof version === 'string') this.legacyVersion = version;
        if (this.initializeIds.size === 0 && this.deferredBatches.length > 0) {
          const deferred = this.deferredBatches;
          this.deferredBatches = [];
          await this.write(message);
          for (const values of deferred) this.receiveBatch(values);
          return;
        }
      }
      const batch = id === undefined ? undefined : this.batchOf.get(id);
      if (batch && id !== undefined) {
        this.batchOf.delete(id);
        batch.waiting.delete(id);
        batch.replies.push(message);
        return this.flushBatch(batch);
      }
    }
    return this.write(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onStdinError);
    this.stdin.off('end', this.onEnd);
    this.stdin.off('close', this.onEnd);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.pending = [];
    this.onclose?.();
  }

  private readonly onEnd = () => void this.close();
  private readonly onStdinError = (error: Error) => this.onerror?.(error);
  private readonly onStdoutError = (error: Error) => {
    if (this.closed) return;
    this.onerror?.(error);
    void this.close();
  };

  private readonly onData = (chunk: Buffer) => {
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(0x0a, start);
      if (end === -1) {
        this.hold(chunk.subarray(start));
        return;
      }
      const tail = chunk.subarray(start, end);
      start = end + 1;
      if (this.discarding) {
        this.discarding = false;
        continue;
      }
      const line = this.pending.length > 0 ? Buffer.concat([...this.pending, tail]) : tail;
      this.pending = [];
      this.pendingBytes = 0;
      if (line.length > this.maxLineBytes) this.refuseTooLong();
      else this.receiveLine(line.toString('utf8'));
    }
  };

  private hold(part: Buffer): void {
    if (part.length === 0 || this.discarding) return;
    this.pendingBytes += part.length;
    if (this.pendingBytes > this.maxLineBytes) {
      // Answered now, not when the line ends: a client may be waiting for it before sending the newline.
      this.pending = [];
      this.pendingBytes = 0;
      this.discarding = true;
      this.refuseTooLong();
      return;
    }
    this.pending.push(Buffer.from(part));
  }

  private refuseTooLong(): void {
    this.reply(
      errorReply(
        null,
        ProtocolErrorCode.InvalidRequest,
        `Invalid Request: a message is longer than ${this.maxLineBytes} bytes; it was skipped.`,
      ),
    );
  }

  private receiveLine(text: string): void {
    const line = text.endsWith('\r') ? text.slice(0, -1) : text;
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.reply(
        errorReply(
          null,
          ProtocolErrorCode.ParseError,
          'Parse error: the line is not valid JSON; each line must hold one complete JSON-RPC message.',
        ),
      );
      return;
    }
    if (Array.isArray(value)) this.receiveBatch(value);
    else this.receive(value, (reply) => this.reply(reply));
  }

  /**
   * One message: answered here when it is invalid or when handing it on would put the SDK in the wrong era, else
   * delivered. `answer` sends a reply (alone, or into a batch); `onDeliver` runs before a request is delivered.
   */
  private receive(
    value: unknown,
    answer: (reply: unknown) => void,
    onDeliver?: (id: RequestId) => void,
  ): void {
    const invalid = invalidMessage(value);
    if (invalid) {
      answer(invalid);
      return;
    }
    const message = value as JSONRPCMessage;
    const deliver = () => {
      if (isJSONRPCRequest(message)) onDeliver?.(message.id);
      this.onmessage?.(message);
    };
    const isRequest = isJSONRPCRequest(message);
    if (!isRequest && !isJSONRPCNotification(message)) {
      deliver(); // a response: the SDK's to match (or drop)
      return;
    }
    const id = isRequest ? message.id : null;
    const refuse = (code: number, text: string, data?: unknown) => {
      if (isRequest) answer(errorReply(id, code, text, data));
      else log('debug', 'stdio: dropped a notification', { method: message.method, reason: text });
    };
    if (isJSONRPCNotification(message) && message.method === 'notifications/cancelled') {
      this.forgetBatched((message.params as { requestId?: RequestId } | undefined)?.requestId);
    }

    if (claimsProtocolVersion(message)) {
      // A 2026-07-28 request: its envelope checked as the SDK checks an opening one, then its version, every time
      // (the SDK checks the version of the connection's first request only).
      const outcome = classifyInboundRequest({ httpMethod: 'POST', body: message });
      if (outcome.kind === 'reject') {
        refuse(outcome.code, outcome.message, outcome.data);
        return;
      }
      if (outcome.kind === 'modern') {
        const version = outcome.classification.revision;
        if (version === undefined || !MODERN_PROTOCOL_VERSIONS.includes(version)) {
          const error = unsupportedVersionError(version ?? 'unknown');
          refuse(error.code, error.message, error.data);
          return;
        }
        if (this.era === 'opening' || this.era === 'probe') {
          const discover = isRequest && message.method === 'server/discover';
          this.era = discover || (!isRequest && this.era === 'probe') ? 'probe' : 'modern';
        }
        deliver();
        return;
      }
    }

    if (isRequest && message.method === 'initialize') {
      if (this.era === 'modern') {
        // The SDK refuses it too, naming only 2026-07-28; this says why, and what to do instead.
        const requested = (message.params as { protocolVersion?: unknown } | undefined)?.protocolVersion;
        refuse(
          ProtocolErrorCode.UnsupportedProtocolVersion,
          `Unsupported protocol version on this connection: it already serves protocol revision ${MODERN_PROTOCOL_VERSIONS.join(', ')} ` +
            "(the version in each request's _meta), which has no initialize. Keep sending _meta, or start a new connection to use initialize.",
          {
            supported: [...MODERN_PROTOCOL_VERSIONS],
            ...(typeof requested === 'string' ? { requested } : {}),
          },
        );
        return;
      }
      this.era = 'legacy';
      this.initializeIds.add(message.id);
      deliver();
      return;
    }
    if (this.era === 'legacy' || this.era === 'modern') {
      deliver();
      return;
    }
    // Opening (or after server/discover alone): the SDK would pin the 2025 era on this message, though it neither
    // is initialize nor carries _meta. Only initialize opens a 2025-era connection here.
    if (isRequest && message.method === 'ping') {
      // 2025 clients may ping before initialize (2025-11-25, Lifecycle); a liveness check that settles nothing.
      answer({ jsonrpc: '2.0', id, result: {} });
      return;
    }
    refuse(ProtocolErrorCode.InvalidParams, MISSING_ENVELOPE);
  }

  /** A JSON-RPC batch: answered as one under 2025-03-26, which had batches; refused under every other revision. */
  private receiveBatch(values: unknown[]): void {
    if (this.initializeIds.size > 0) {
      this.deferredBatches.push(values);
      return;
    }
    if (this.era !== 'legacy' || this.legacyVersion !== BATCH_PROTOCOL_VERSION) {
      const revision =
        this.era === 'legacy'
          ? this.legacyVersion
            ? `protocol revision ${this.legacyVersion}`
            : 'this connection (initialize negotiated no revision)'
          : this.era === 'opening'
            ? 'this connection before initialize negotiates a revision that has them'
            : `protocol revision ${MODERN_PROTOCOL_VERSIONS.join(', ')}`;
      this.reply(
        errorReply(
          null,
          ProtocolErrorCode.InvalidRequest,
          `Invalid Request: JSON-RPC batches are not supported by ${revision} (only ${BATCH_PROTOCOL_VERSION} has them); send one message per line.`,
        ),
      );
      return;
    }
    if (values.length === 0) {
      this.reply(errorReply(null, ProtocolErrorCode.InvalidRequest, 'Invalid Request: the batch is empty.'));
      return;
    }
    const batch: Batch = { waiting: new Set(), replies: [] };
    const answer = (reply: unknown) => batch.replies.push(reply);
    for (const value of values) {
      const id = readableId(value);
      const method = isObject(value) ? value.method : undefined;
      if (method === 'initialize') {
        // 2025-03-26, Lifecycle: the initialization request MUST NOT be part of a JSON-RPC batch.
        answer(
          errorReply(
            id,
            ProtocolErrorCode.InvalidRequest,
            'Invalid Request: initialize cannot be part of a batch.',
          ),
        );
        continue;
      }
      if (typeof method === 'string' && id !== null && (batch.waiting.has(id) || this.batchOf.has(id))) {
        answer(
          errorReply(
            id,
            ProtocolErrorCode.InvalidRequest,
            `Invalid Request: id ${JSON.stringify(id)} is already in use.`,
          ),
        );
        continue;
      }
      this.receive(value, answer, (requestId) => {
        batch.waiting.add(requestId);
        this.batchOf.set(requestId, batch);
      });
    }
    void this.flushBatch(batch);
  }

  /** A cancelled request gets no answer (MCP, Cancellation): its batch stops waiting for one. */
  private forgetBatched(id: RequestId | undefined): void {
    const batch = id === undefined ? undefined : this.batchOf.get(id);
    if (!batch || id === undefined) return;
    this.batchOf.delete(id);
    batch.waiting.delete(id);
    void this.flushBatch(batch);
  }

  private async flushBatch(batch: Batch): Promise<void> {
    // A batch of notifications only gets no answer at all (JSON-RPC 2.0, Batch).
    if (batch.waiting.size > 0 || batch.replies.length === 0) return;
    const replies = batch.replies;
    batch.replies = [];
    await this.write(replies);
  }

  private reply(message: unknown): void {
    this.write(message).catch((error: unknown) =>
      this.onerror?.(error instanceof Error ? error : new Error(String(error))),
    );
  }

  private write(message: unknown): Promise<void> {
    if (this.closed) return Promise.reject(new Error('The stdio transport is closed.'));
    return new Promise((resolve, reject) => {
      // The callback fires once the line is handed to the OS, so a slow reader holds back the writer (backpressure).
      this.stdout.write(`${JSON.stringify(message)}\n`, (error) => (error ? reject(error) : resolve()));
    });
  }
}
