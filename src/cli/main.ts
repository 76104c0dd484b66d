#!/usr/bin/env node
// The `switchboard` command: `serve` MCP tools, `emulate` upstream APIs, `login` to one's own account, list the
// `toolsets`. Flag parsing only; the work is done by the runtime and the services' entries (src/services/registry.ts).

import { Argument, Command, InvalidArgumentError, Option } from 'commander';
import { DEFAULT_HTTP_LIMITS } from '../runtime/httpLimits.js';
import { DEFAULT_SHUTDOWN_GRACE_MS } from '../runtime/lifecycle.js';
import { DEFAULT_MAX_RESULT_TOKENS, MAX_RESULT_TOKENS, MIN_RESULT_TOKENS } from '../runtime/result.js';
import { REDIS_URL_VARIABLE } from '../runtime/sharedState/redisUrl.js';
import { VERSION } from '../runtime/version.js';
import { findLogin, LOGIN_SERVICES, SERVICES } from '../services/registry.js';
import { runEmulate } from './emulate.js';
import { runServe } from './serve.js';

function integer(name: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
      throw new InvalidArgumentError(`${name} must be a whole number from ${min} to ${max}.`);
    }
    return parsed;
  };
}

// The services in help texts and argument checks come from the registry, so help never names one that is not there.
const SERVICE_IDS = SERVICES.map((service) => service.id);
const SERVICE_CHOICES = `${SERVICE_IDS.join(', ')}, or all`;

function servicesArgument(description: string): Argument {
  return new Argument('[services...]', description).choices([...SERVICE_IDS, 'all']).default(['all']);
}

/** Every service's credential flags for `emulate`, by flag; the help says which service takes each and what for. */
function credentialFlags(): Map<string, { description: string; choices?: readonly string[] }> {
  const flags = new Map<string, { description: string; choices?: readonly string[] }>();
  for (const service of SERVICES) {
    for (const { flag, description, choices } of service.credentialFlags) {
      const line = `${service.id}: ${description}`;
      const known = flags.get(flag);
      const only = known?.choices ?? choices;
      flags.set(flag, {
        description: known ? `${known.description}; ${line}` : line,
        ...(only ? { choices: only } : {}),
      });
    }
  }
  return flags;
}

const titles = SERVICES.map((service) => service.title);
const program = new Command()
  .name('switchboard')
  .description(
    `MCP tool servers for ${titles.slice(0, -1).join(', ')} and ${titles.at(-1)}, and local emulators of their upstreams.`,
  )
  .version(VERSION, '-v, --version', 'print the version and stop')
  .addHelpText(
    'after',
    `\nServices:\n${SERVICES.map((service) => `  ${service.id.padEnd(12)}${service.title}`).join('\n')}\n  ${'all'.padEnd(12)}every service above\n`,
  )
  .showHelpAfterError();

program
  .command('serve')
  .description(`Serve MCP tools for one or more services (${SERVICE_CHOICES}).`)
  .addArgument(servicesArgument('services to serve'))
  .addOption(
    new Option('--transport <kind>', 'stdio or Streamable HTTP').choices(['stdio', 'http']).default('stdio'),
  )
  .option('--host <host>', 'HTTP address to bind', '127.0.0.1')
  .option('--port <port>', 'HTTP port (0 picks a free one)', integer('--port', 0, 65535), 8787)
  .option('--sandbox', 'run against built-in emulators with seeded data; no credentials needed', false)
  .option(
    '--data-dir <dir>',
    'data folder: sandbox emulators and the OAuth state (SQLite files), or :memory:',
  )
  .option('--reset', 'sandbox: reseed the emulators', false)
  .option('--seed <n>', 'sandbox: seed for generated data', integer('--seed', 0))
  .option('--read-only', 'only tools that change nothing (readOnlyHint true)', false)
  .option(
    '--no-confirm-destructive',
    'run destructive tools without asking the user first, even where the client can ask (for unattended agents)',
  )
  .option(
    '--no-output-schemas',
    'list tools without their outputSchema, for clients that refuse tools declaring one (results keep their shape)',
  )
  .option('--tools <names>', 'only these tools, comma-separated (e.g. IssueDesk.GetIssue,ListUsers)')
  .option(
    '--toolsets <names>',
    'only these toolsets, comma-separated (e.g. store.records,store.comments); with --tools, both; `switchboard toolsets` lists them',
  )
  .option(
    '--discovery',
    'list only search_tools and call_tool, which find and run the served tools (for clients that pay for every listed tool)',
    false,
  )
  .addOption(
    new Option('--tool-names <style>', 'dotted (IssueDesk.WhoAmI) or underscore (IssueDesk_WhoAmI)')
      .choices(['dotted', 'underscore'])
      .default('dotted'),
  )
  .option(
    '--max-result-tokens <n>',
    `most o200k tokens per tool result; a bigger one is cut at item boundaries with a note on how to get the rest (${MIN_RESULT_TOKENS} to ${MAX_RESULT_TOKENS})`,
    integer('--max-result-tokens', MIN_RESULT_TOKENS, MAX_RESULT_TOKENS),
    DEFAULT_MAX_RESULT_TOKENS,
  )
  .option('--allowed-hosts <names>', 'HTTP: extra Host/Origin names to accept, comma-separated')
  .option(
    '--request-timeout <seconds>',
    'HTTP: longest time to receive a request, body included (a tool call may answer later)',
    integer('--request-timeout', 1, 3600),
    DEFAULT_HTTP_LIMITS.requestTimeoutMs / 1000,
  )
  .option(
    '--headers-timeout <seconds>',
    'HTTP: longest time to receive request headers, also for a new connection (at most --request-timeout)',
    integer('--headers-timeout', 1, 3600),
    DEFAULT_HTTP_LIMITS.headersTimeoutMs / 1000,
  )
  .option(
    '--keep-alive-timeout <seconds>',
    'HTTP: how long an idle connection stays open between requests',
    integer('--keep-alive-timeout', 1, 600),
    DEFAULT_HTTP_LIMITS.keepAliveTimeoutMs / 1000,
  )
  .option(
    '--max-connections <n>',
    'HTTP: most connections open at once; more are refused',
    integer('--max-connections', 1, 100_000),
    DEFAULT_HTTP_LIMITS.maxConnections,
  )
  .option(
    '--trust-proxy',
    'HTTP: believe X-Forwarded-Proto/-Host and Forwarded from the proxy in front (for the OAuth URLs and the Host check); only when every request comes through a proxy that sets them',
    false,
  )
  .option(
    '--metrics-port <port>',
    'HTTP: serve Prometheus /metrics on this port of the same host, without auth, instead of on the MCP port (0 picks a free one)',
    integer('--metrics-port', 0, 65535),
  )
  .option(
    '--shutdown-grace <seconds>',
    'HTTP: on SIGTERM or SIGINT, how long calls in flight may take to finish before they are cut',
    integer('--shutdown-grace', 0, 3600),
    DEFAULT_SHUTDOWN_GRACE_MS / 1000,
  )
  .option(
    '--redis-url <url>',
    `Redis shared by replicas (rate budgets, caches, OAuth state), e.g. redis://host:6379; sets ${REDIS_URL_VARIABLE}`,
  )
  .action(async (services: string[], options) => {
    // Through the environment, so every part that reads the setting (and its checks) sees the flag.
    if (options.redisUrl !== undefined) process.env[REDIS_URL_VARIABLE] = options.redisUrl;
    await runServe(services, options);
  });

program
  .command('toolsets')
  .description('List every toolset with its tools and what its definitions cost a model in tokens.')
  .addArgument(servicesArgument('services to list'))
  .option('--json', 'print JSON for machines', false)
  .action(async (services: string[], options: { json: boolean }) => {
    // Loaded on demand: serving never needs the report (or the tokenizer it loads).
    const { runToolsets } = await import('./toolsets.js');
    await runToolsets(services, options);
  });

const emulate = program
  .command('emulate')
  .description(`Run upstream API emulators alone (${SERVICE_CHOICES}).`)
  .addArgument(servicesArgument('services to emulate'))
  .option('--host <host>', 'address to bind', '127.0.0.1')
  .option('--port <port>', 'port of the first emulator (0 picks free ones)', integer('--port', 0, 65535), 0)
  .option('--db <file>', 'SQLite file (one service) or folder (several); default :memory:')
  .option('--seed <n>', 'seed for generated data', integer('--seed', 0), 1)
  .option('--scale <n>', 'number of issues (or records) to generate', integer('--scale', 1, 200_000))
  .option('--reset', 'reseed even if the database holds data', false);
// Each service's credential flags, from its entry; a flag several services take is declared once.
for (const [flag, { description, choices }] of credentialFlags()) {
  const option = new Option(`--${flag} <${flag}>`, description);
  emulate.addOption(choices ? option.choices(choices) : option);
}
emulate.action(async (services: string[], options) => {
  await runEmulate(services, options);
});

program
  .command('login')
  .description(LOGIN_SERVICES.map((service) => service.login?.description).join(' '))
  .argument('<service>', `the service to connect: ${LOGIN_SERVICES.map((service) => service.id).join(', ')}`)
  .option(
    '--port <port>',
    'loopback port for the browser redirect (0 picks a free one)',
    integer('--port', 0, 65535),
    0,
  )
  .option('--no-browser', 'print the address to open instead of opening a browser')
  .option('--status', 'show who the saved login is for, and stop', false)
  .option('--timeout <seconds>', 'how long to wait for the browser', integer('--timeout', 1, 3600), 300)
  .action(
    async (
      service: string,
      options: { port: number; browser: boolean; status: boolean; timeout: number },
    ) => {
      const login = findLogin(service);
      if (options.status) {
        if (!login.status()) process.exitCode = 1;
        return;
      }
      await login.run({
        port: options.port,
        openBrowser: options.browser,
        timeoutMs: options.timeout * 1000,
      });
    },
  );

program.parseAsync(process.argv).catch((error: unknown) => {
  // SQLite says "database is locked" for several distinct cases; its extended code tells them apart.
  const code = (error as { code?: unknown } | null)?.code;
  const sqlite = typeof code === 'string' && code.startsWith('SQLITE_') ? ` (${code})` : '';
  process.stderr.write(`switchboard: ${error instanceof Error ? error.message : String(error)}${sqlite}\n`);
  process.exit(1);
});
