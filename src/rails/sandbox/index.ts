/**
 * The sandbox (issue 21 section 2): test keys' orders driven to each outcome through the live
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
