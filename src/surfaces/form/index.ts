/** The payment form (issue 7): the page a merchant's client pays on. */

export { formRoutes } from './form-routes.js';
export { formSandboxRoutes } from './form-sandbox-routes.js';
export { createFormService, type FormService } from './form-service.js';
