// Each emulator's routes held against its service's endpoint table (moto-style coverage), for every service of the
// registry: built in-process, its Hono `app.routes` are read, and (a) every operation the tools or the upstream
// client use has a route, (b) every route outside /_emulator is an operation of the table or one the emulator
// declares its own. The committed docs/coverage.md must be what `npm run docs` writes now.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  renderCoverage,
  routeShape,
  type ServiceCoverage,
  serviceCoverage,
} from '../../src/docs/coverage.js';
import type { Operation } from '../../src/runtime/operation.js';
import { SERVICES } from '../../src/services/registry.js';

const runtimes = SERVICES.map((service) => service.runtimeFromEnv({}));
const coverage = new Map<string, ServiceCoverage>();

beforeAll(async () => {
  for (const runtime of runtimes) {
    const service = await serviceCoverage(runtime);
    if (service) coverage.set(service.id, service);
  }
}, 60_000);

describe('routeShape', () => {
  it("reads the table's {name} and Hono's :name, :name{regex}, mount prefixes and trailing slashes alike", () => {
    expect(routeShape('/v0/{baseId}/{tableIdOrName}')).toBe('/v0/{}/{}');
    expect(routeShape('/v0/:baseId/:table/')).toBe('/v0/{}/{}');
    expect(routeShape('/v0/:accountId{ent[^/]*}/:dataTableId/getRecords')).toBe('/v0/{}/{}/getRecords');
    expect(routeShape('/eu/api/v1/customers/:identifier', ['/', '/eu'])).toBe('/api/v1/customers/{}');
    expect(routeShape('/europe/x', ['/eu'])).toBe('/europe/x');
  });
});

for (const runtime of runtimes) {
  const { id, prefix } = runtime.definition;
  describe(`${prefix} emulator`, () => {
    const service = () => {
      const found = coverage.get(id);
      if (!found) throw new Error(`no coverage for ${id}`);
      return found;
    };

    it('serves every operation the tools or the upstream client use', () => {
      const used = service().operations.filter((op) => op.tools.length > 0 || op.elsewhere.length > 0);
      expect(used.length).toBeGreaterThan(0);
      const missing = used.filter((op) => !op.emulated).map((op) => `${op.name} (${op.method} ${op.path})`);
      expect(missing).toEqual([]);
    });

    it('serves nothing outside /_emulator that is not an operation of the table or declared its own', () => {
      expect(service().unmatchedRoutes).toEqual([]);
      expect(service().emulatorOnly.filter((route) => !route.served)).toEqual([]);
    });

    it("lists each tool under the operation its row names, where the tool says which (the docs' tools column)", () => {
      const byOperation = new Map(service().operations.map((op) => [`${op.method} ${op.path}`, op]));
      const named = runtime.definition.tools.flatMap((tool) => {
        const operation = (tool as { operation?: Operation }).operation;
        return operation ? [{ tool: `${prefix}.${tool.name}`, operation }] : [];
      });
      for (const { tool, operation } of named) {
        expect(byOperation.get(`${operation.method} ${operation.path}`)?.tools ?? []).toContain(tool);
      }
    });
  });
}

describe('docs/coverage.md', () => {
  it('is what `npm run docs` writes from the code now', () => {
    const services = runtimes.flatMap((runtime) => coverage.get(runtime.definition.id) ?? []);
    expect(readFileSync('docs/coverage.md', 'utf8')).toBe(renderCoverage(services));
  });
});
