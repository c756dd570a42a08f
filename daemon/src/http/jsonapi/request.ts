// JSON:API request documents moved to contract/bodies-jsonapi.ts (the web UI sends them too).
// Kept only while a file being moved by a parallel change still imports them from here.
export { ResourceInput, ToManyInput, ToOneInput } from '../../contract/bodies-jsonapi';
