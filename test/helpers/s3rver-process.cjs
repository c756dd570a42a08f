// s3rver in a process of its own (test/helpers/s3-server.ts): `node s3rver-process.cjs DIR BUCKET`.
// Prints `{"port":N}` once it listens; stops on SIGTERM.
//
// s3rver 3.7.1 writes an object through a file stream it does not guard: a DeleteObject of the
// same key while a PutObject still streams (the daemon discarding a PUT that a newer one
// replaced) removes the folder under it, and the stream's 'error' is unhandled. Real S3 lets
// either win; here that PUT simply fails. Logged, not fatal, so one race does not stop the server.
const S3rver = require('s3rver');

const [directory, bucket] = process.argv.slice(2);
process.on('uncaughtException', (err) => {
  if (err && err.code === 'ENOENT' && String(err.path).startsWith(directory)) {
    process.stderr.write(`s3rver: a write raced a delete of the same key: ${err.message}\n`);
    return;
  }
  throw err;
});
const server = new S3rver({
  address: '127.0.0.1',
  port: 0,
  silent: true,
  directory,
  configureBuckets: [{ name: bucket }],
});
server.run().then((address) => {
  process.stdout.write(`${JSON.stringify({ port: address.port })}\n`);
});
process.on('SIGTERM', () => {
  server.close().then(() => process.exit(0));
});
