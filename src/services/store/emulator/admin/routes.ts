/**
 * Every administration route family, registered in one place (before the data plane's records routes, whose
 * `/v0/{baseId}/...` patterns would otherwise take paths like `/v0/{enterpriseAccountId}/{dataTableId}/...`).
 */
import type { Hono } from 'hono';
import type { EmulatorEnv } from '../../../../emulation/env.js';
import { registerBulkTableRoutes } from '../routes/bulkTables.js';
import { registerComplianceRoutes } from '../routes/compliance.js';
import { registerEnterpriseRoutes } from '../routes/enterprise.js';
import { registerScimRoutes } from '../routes/scim.js';
import { registerSharingRoutes } from '../routes/sharing.js';
import { registerWorkspaceRoutes } from '../routes/workspaces.js';
import type { AdminRouteDeps } from './guards.js';

export function registerAdminRoutes(app: Hono<EmulatorEnv>, deps: AdminRouteDeps): void {
  registerScimRoutes(app, deps);
  registerEnterpriseRoutes(app, deps);
  registerComplianceRoutes(app, deps);
  registerWorkspaceRoutes(app, deps);
  registerSharingRoutes(app, deps);
  registerBulkTableRoutes(app, deps);
}
