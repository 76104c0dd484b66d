// Placeholder: replaced by the route family's implementation.
import type { Hono } from 'hono';
import type { EmulatorEnv } from '../../../../emulation/env.js';
import type { AdminRouteDeps } from '../admin/guards.js';

export function registerBulkTableRoutes(_app: Hono<EmulatorEnv>, _deps: AdminRouteDeps): void {}
