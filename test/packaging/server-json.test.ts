// server.json, the entry for the official MCP registry: valid against the registry's published schema (a copy in
// fixtures/, see its NOTICE), in step with package.json, and naming exactly the credentials the services ask for.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { SERVICES } from '../../src/services/registry.js';
import { ROOT } from '../e2e/harness.js';

interface Input {
  name?: string;
  value?: string;
  default?: string;
  choices?: string[];
  isSecret?: boolean;
  isRequired?: boolean;
  variables?: Record<string, Input>;
}

interface ServerJson {
  $schema: string;
  name: string;
  description: string;
  version: string;
  packages: {
    registryType: string;
    registryBaseUrl?: string;
    identifier: string;
    version: string;
    transport: { type: string };
    packageArguments: (Input & { type: string; valueHint?: string })[];
    environmentVariables: Input[];
  }[];
  remotes: { type: string; url: string; variables?: Record<string, Input>; headers?: Input[] }[];
}

const FIXTURES = join(ROOT, 'test/packaging/fixtures');
const schemaText = readFileSync(join(FIXTURES, 'server.schema.json'), 'utf8');
const schema = JSON.parse(schemaText) as { $id: string };
const server = JSON.parse(readFileSync(join(ROOT, 'server.json'), 'utf8')) as ServerJson;
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  mcpName?: string;
};

function validator() {
  // strict: false because the registry's schema uses OpenAPI's `example` keyword, which JSON Schema does not define.
  const ajv = new Ajv({ strict: false, allErrors: true });
  ajv.addFormat('uri', (value: string) => URL.canParse(value));
  return ajv.compile(schema);
}

describe('server.json', () => {
  it('uses the registry schema it names, unchanged since it was copied', () => {
    expect(schema.$id).toBe('https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json');
    expect(server.$schema).toBe(schema.$id);
    // The published file's content (the formatter may re-indent the copy; the parsed content is what counts).
    const content = createHash('sha256')
      .update(JSON.stringify(JSON.parse(schemaText)))
      .digest('hex');
    expect(content).toBe('64cff5eeae54d30932207dfb38324e12eeaeb4abaa09f73dc42c9a9ca319f76e');
  });

  it('is valid against the schema', () => {
    const validate = validator();
    const valid = validate(server);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('would be refused by the schema if it broke its rules (the check is not vacuous)', () => {
    const validate = validator();
    const tooLong = { ...server, description: 'x'.repeat(101) };
    expect(validate(tooLong)).toBe(false);
    const latest = { ...server, packages: [{ ...server.packages[0]!, version: 'latest' }] };
    expect(validate(latest)).toBe(false);
    const badName = { ...server, name: 'switchboard' };
    expect(validate(badName)).toBe(false);
  });

  it('has the version, package name and registry name of package.json', () => {
    expect(server.version).toBe(manifest.version);
    // The registry checks ownership of an npm package by its package.json `mcpName`.
    expect(manifest.mcpName).toBe(server.name);
    const npm = server.packages.filter((entry) => entry.registryType === 'npm');
    expect(npm).toHaveLength(1);
    expect(npm[0]!.identifier).toBe(manifest.name);
    expect(npm[0]!.version).toBe(manifest.version);
    // The official registry takes npm packages from this registry only.
    expect(npm[0]!.registryBaseUrl).toBe('https://registry.npmjs.org');
    // One exact version, never a range (the registry refuses ranges; the schema only describes the rule).
    expect(server.version).toMatch(/^\d+\.\d+\.\d+(-[\w.]+)?$/);
  });

  it('runs `switchboard serve <service>` over stdio, offering exactly the services the CLI knows', () => {
    const [npm] = server.packages;
    expect(npm!.transport).toEqual({ type: 'stdio' });
    const [command, services] = npm!.packageArguments;
    expect(command).toMatchObject({ type: 'positional', value: 'serve' });
    expect(services!.choices).toEqual(['all', ...SERVICES.map((service) => service.id)]);
    expect(services!.default).toBe('all');
  });

  it('names exactly the credential variables the services ask for, secrets marked secret', () => {
    const asked = SERVICES.flatMap(
      (service) =>
        // No saved store login: the variables a first-time user must set.
        service.missingCredentials({ SWITCHBOARD_CREDENTIALS_FILE: '/nonexistent/credentials.json' })
          ?.variables ?? [],
    );
    const declared = server.packages[0]!.environmentVariables;
    expect(declared.map((variable) => variable.name).sort()).toEqual([...asked].sort());
    for (const variable of declared) {
      expect(variable.isSecret === true, variable.name).toBe(/_(TOKEN|KEY)$/.test(variable.name!));
      // The server starts without any of them (each call says what is missing), so none is required to start.
      expect(variable.isRequired, variable.name).not.toBe(true);
    }
  });

  it('describes a deployment as a Streamable HTTP remote at /mcp, its token secret', () => {
    const [remote] = server.remotes;
    expect(remote!.type).toBe('streamable-http');
    expect(new URL(remote!.url.replace('{host}', 'example.com')).pathname).toBe('/mcp');
    expect(remote!.variables?.host?.isRequired).toBe(true);
    const authorization = remote!.headers?.find((header) => header.name === 'Authorization');
    expect(authorization?.value).toBe('Bearer {token}');
    expect(authorization?.variables?.token?.isSecret).toBe(true);
  });
});
