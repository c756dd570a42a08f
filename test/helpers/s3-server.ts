import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';

/**
 * An S3-protocol server for tests, on 127.0.0.1 (a free port), that the daemon reaches through the
 * real AWS SDK. Usable in a test file and from a vitest globalSetup (nothing here depends on the
 * test runner): the API suite shares one server and gives each test a prefix of its own.
 *
 * Two engines:
 * - `s3rver` (npm, in a process of its own, files in a temp folder): objects, ranges, copies, multipart uploads
 *   and presigned URLs. It lacks AbortMultipartUpload (405 MethodNotAllowed), ListMultipartUploads
 *   and UploadPartCopy (501 NotImplemented), and a copy of an object onto itself keeps its
 *   LastModified.
 * - `moto` (moto_server, Python moto 5 in the machine image; a child process, in memory): also
 *   those calls, so the tests of aborted uploads and of the sweeper run on it.
 */
export type S3Engine = 's3rver' | 'moto';

export interface TestS3 {
  engine: S3Engine;
  /** `http://127.0.0.1:PORT` */
  endpoint: string;
  bucket: string;
  region: string;
  /** The server's test credentials, for an S3Client's config. */
  credentials: { accessKeyId: string; secretAccessKey: string };
  /**
   * The same as environment variables, for a daemon started as a child process (the SDK's default chain reads them).
   */
  env: Record<string, string>;
  /** The daemon's --blobs value for keys under `prefix`. */
  url(prefix?: string): string;
  /** A client of this server (the caller destroys it). */
  client(): S3Client;
  close(): Promise<void>;
}

export interface S3ServerOptions {
  engine?: S3Engine;
  bucket?: string;
}

const REGION = 'us-east-1';

function describe(
  engine: S3Engine,
  endpoint: string,
  bucket: string,
  credentials: TestS3['credentials'],
  close: () => Promise<void>,
): TestS3 {
  const client = () => new S3Client({ endpoint, region: REGION, forcePathStyle: true, credentials });
  return {
    engine,
    endpoint,
    bucket,
    region: REGION,
    credentials,
    env: {
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      AWS_REGION: REGION,
    },
    url: (prefix = '') =>
      `s3://${bucket}/${prefix.replace(/^\/+/, '')}?endpoint=${encodeURIComponent(endpoint)}&region=${REGION}`,
    client,
    close,
  };
}

/** s3rver in a process of its own (s3rver-process.cjs): a fault of its own never takes the test runner down. */
async function startS3rver(bucket: string): Promise<TestS3> {
  const directory = mkdtempSync(join(tmpdir(), 'boxyard-s3rver-'));
  const child = spawn(
    process.execPath,
    [fileURLToPath(new URL('./s3rver-process.cjs', import.meta.url)), directory, bucket],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let port: number;
  try {
    port = await new Promise<number>((resolve, reject) => {
      let seen = '';
      child.stdout.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        const m = /\{"port":(\d+)\}/.exec(seen);
        if (m) resolve(Number(m[1]));
      });
      child.once('exit', (code) => reject(new Error(`s3rver exited with ${code} before it listened`)));
    });
  } catch (err) {
    rmSync(directory, { recursive: true, force: true });
    throw err;
  }
  // s3rver's own fixed keys: its signature checks are real, so the client must sign with them.
  const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  return describe('s3rver', `http://127.0.0.1:${port}`, bucket, credentials, async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(directory, { recursive: true, force: true });
  });
}

/** Waits for werkzeug's "Running on http://127.0.0.1:PORT" (port 0 lets the system choose). */
function motoPort(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      const m = /Running on http:\/\/127\.0\.0\.1:(\d+)/.exec(seen);
      if (m) resolve(Number(m[1]));
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('error', (err) =>
      reject(new Error(`could not start moto_server (Python moto, in the machine image): ${err.message}`)),
    );
    child.once('exit', (code) =>
      reject(new Error(`moto_server exited (${code}) before listening: ${seen.slice(-2000)}`)),
    );
  });
}

async function startMoto(bucket: string): Promise<TestS3> {
  const child = spawn('moto_server', ['-H', '127.0.0.1', '-p', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let port: number;
  try {
    port = await motoPort(child);
  } catch (err) {
    child.kill();
    throw err;
  }
  // Its log goes nowhere, but must be read: a full pipe would stop the server.
  child.stdout?.resume();
  child.stderr?.resume();
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill();
    await exited;
  };
  // moto accepts any credentials.
  const s3 = describe(
    'moto',
    `http://127.0.0.1:${port}`,
    bucket,
    { accessKeyId: 'testing', secretAccessKey: 'testing' },
    stop,
  );
  const client = s3.client();
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } catch (err) {
    await stop();
    throw err;
  } finally {
    client.destroy();
  }
  return s3;
}

export async function startS3Server(opts: S3ServerOptions = {}): Promise<TestS3> {
  const bucket = opts.bucket ?? 'boxyard-test';
  return (opts.engine ?? 's3rver') === 'moto' ? startMoto(bucket) : startS3rver(bucket);
}
