/** `GET /`: the page (and JSON) that tells a person where the portal, console and docs are. */
export { homeRoutes } from './home-routes.js';
