/**
 * The sandbox (docs/decisions.md section 29): test keys' orders driven to each outcome through the live
 * lifecycle, by the signed API, the portal and the test payment form.
 */
export { sandboxRoutes } from './sandbox-routes.js';
export {
  createSandboxService,
  isSandboxOutcome,
  outcomesFor,
  SANDBOX_OUTCOMES,
  type SandboxOutcome,
  type SandboxService,
} from './sandbox-service.js';
