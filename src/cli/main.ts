#!/usr/bin/env node
// The `switchboard` command: `serve` MCP tools, `emulate` upstream APIs, `login` to one's own store account. Flag
// parsing only; the work is done by the runtime, the service registry and login.ts.

import { Argument, Command, InvalidArgumentError, Option } from 'commander';
import { DEFAULT_HTTP_LIMITS } from '../runtime/httpLimits.js';
import { VERSION } from '../runtime/version.js';
import { SERVICES } from '../services/registry.js';
import { runEmulate } from './emulate.js';
import { runLogin } from './login.js';
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
  .option('--tools <names>', 'only these tools, comma-separated (e.g. IssueDesk.GetIssue,ListUsers)')
  .addOption(
    new Option('--tool-names <style>', 'dotted (IssueDesk.WhoAmI) or underscore (IssueDesk_WhoAmI)')
      .choices(['dotted', 'underscore'])
      .default('dotted'),
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
  .action(async (services: string[], options) => {
    await runServe(services, options);
  });

program
  .command('emulate')
  .description(`Run upstream API emulators alone (${SERVICE_CHOICES}).`)
  .addArgument(servicesArgument('services to emulate'))
  .option('--host <host>', 'address to bind', '127.0.0.1')
  .option('--port <port>', 'port of the first emulator (0 picks free ones)', integer('--port', 0, 65535), 0)
  .option('--db <file>', 'SQLite file (one service) or folder (several); default :memory:')
  .option('--seed <n>', 'seed for generated data', integer('--seed', 0), 1)
  .option('--scale <n>', 'number of issues (or records) to generate', integer('--scale', 1, 200_000))
  .option('--reset', 'reseed even if the database holds data', false)
  .option('--token <token>', 'issuedesk and store: the token to accept (for the store, with every scope)')
  .option('--site-id <id>', 'messaging: the site id to accept')
  .option('--api-key <key>', 'messaging: the Track API key to accept')
  .addOption(new Option('--region <region>', "messaging: the account's region").choices(['us', 'eu']))
  .action(async (services: string[], options) => {
    await runEmulate(services, options);
  });

program
  .command('login')
  .description(
    'Connect your own data store account through the browser (OAuth); `serve store` then uses and renews it.',
  )
  .argument('<service>', 'the service to connect: store')
  .option(
    '--port <port>',
    'loopback port for the browser redirect (0 picks a free one)',
    integer('--port', 0, 65535),
    0,
  )
  .option('--no-browser', 'print the address to open instead of opening a browser')
  .option('--status', 'show who the saved login is for, and stop', false)
  .option('--timeout <seconds>', 'how long to wait for the browser', integer('--timeout', 1, 3600), 300)
  .action(async (service: string, options) => {
    await runLogin(service, options);
  });

program.parseAsync(process.argv).catch((error: unknown) => {
  process.stderr.write(`switchboard: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
