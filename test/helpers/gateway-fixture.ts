// The set-up most test files share: one gateway for the file (or the describe block) and two tenants, `a` and
// `b`, each its own org with one factory. Kept apart from gateway.ts, which bench/ scripts import outside
// vitest, because this registers vitest hooks.
import { afterAll, beforeAll } from 'vitest';
import {
  createTenant,
  startGateway,
  type StartOptions,
  type Tenant,
  type TenantOptions,
  type TestGateway,
} from './gateway.js';

export interface GatewayAndTenants {
  gw: TestGateway;
  a: Tenant;
  b: Tenant;
}

export interface GatewayAndTenantsOptions {
  gateway?: StartOptions;
  a?: TenantOptions;
  b?: TenantOptions;
}

/**
 * Registers, where it is called, a beforeAll that starts a gateway and creates tenant `a` then tenant `b`, and
 * an afterAll that closes the gateway (also when creating a tenant failed). `use` receives the handles once
 * they exist, so a file keeps its own names for them: `withGatewayAndTenants((s) => ({ gw, a: t, b: other } = s))`.
 * A beforeAll the file registers after this call runs after it, with the gateway and tenants in place.
 */
export function withGatewayAndTenants(
  use: (handles: GatewayAndTenants) => void,
  opts: GatewayAndTenantsOptions = {},
): void {
  let gw: TestGateway | undefined;
  beforeAll(async () => {
    gw = await startGateway(opts.gateway);
    const a = await createTenant(gw, opts.a);
    const b = await createTenant(gw, opts.b);
    use({ gw, a, b });
  });
  afterAll(async () => {
    await gw?.close();
  });
}
