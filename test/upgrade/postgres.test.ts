import { upgradesOn } from './serve-fixture';

upgradesOn('postgres');
