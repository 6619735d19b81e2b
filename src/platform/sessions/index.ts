/**
 * The session stack of every surface people sign in to (docs/architecture.md "Session stack"):
 * sessions and CSRF (`createSessionStack`), forms and their schemas (`registerFormScope`, `FormBody`),
 * the second factor (`createTwoFactor`) and the sign-in throttle (`throttledSignIn`).
 */
export { Field, FormBody, IdParams, PathParam, registerFormScope } from './form-scope.js';
export { type FailureLimit, throttledSignIn } from './login-throttle.js';
export {
  createSessionStack,
  type SessionCookieOptions,
  type SessionRouteConfig,
  type SessionStack,
  type SessionStackOptions,
  sessionCookieOptions,
} from './session-stack.js';
export { createTwoFactor, type PendingSecret, type TwoFactor } from './two-factor.js';
