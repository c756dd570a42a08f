import { upgradesOn } from './serve-fixture';

upgradesOn('sqlite');
