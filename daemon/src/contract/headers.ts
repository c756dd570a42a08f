/** HTTP names the daemon and the web UI must agree on. */

/** JSON:API's media type: the agent-pools API's bodies, in and out. */
export const JSONAPI_TYPE = 'application/vnd.api+json';

/**
 * The header the web UI sends on every request, and its value (daemon/src/http/session-cookie.ts
 * says why a page on another origin cannot send it).
 */
export const CSRF_HEADER = 'x-boxyard-csrf';
export const CSRF_VALUE = '1';
