import { buildDaemon } from '../scripts/build-daemon.mjs';

/** Tests that spawn bin/boxyard.mjs run the bundle: build it from the current sources first. */
export default async function setup(): Promise<void> {
  await buildDaemon();
}
