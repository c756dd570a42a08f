export const JSONAPI_TYPE = 'application/vnd.api+json';
