// The naming rules moved to contract/names.ts (the web UI checks forms against them too).
// Kept only while files being moved by a parallel change still import it from here.
export { AccountName, nameKey, PathName, RESERVED_NAMES } from '../contract/names';
