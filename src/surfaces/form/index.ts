/** The payment form (docs/api.md "Payment form"): the page a merchant's client pays on. */

export { formRoutes } from './form-routes.js';
export { formSandboxRoutes } from './form-sandbox-routes.js';
export { createFormService, type FormService } from './form-service.js';
