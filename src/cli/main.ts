#!/usr/bin/env node
// The `switchboard` command: `serve` MCP tools, `emulate` upstream APIs, `login` to one's own store account. Flag
// parsing only; the work is done by the runtime, the service registry and login.ts.

import { Command, InvalidArgumentError, Option } from 'commander';
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

const program = new Command()
  .name('switchboard')
  .description(
    'MCP tool servers for IssueDesk, MessagingTrackApi and StoreApi, and local emulators of their upstreams.',
  )
  .showHelpAfterError();

program
  .command('serve')
  .description('Serve MCP tools for one or more services (issuedesk, or all).')
  .argument('[services...]', 'services to serve', ['all'])
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
  .action(async (services: string[], options) => {
    await runServe(services, options);
  });

program
  .command('emulate')
  .description('Run upstream API emulators alone (issuedesk, messaging, store, or all).')
  .argument('[services...]', 'services to emulate', ['all'])
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
