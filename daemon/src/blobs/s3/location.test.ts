import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../lib/errors';
import { parseS3Location } from './location';

describe('parseS3Location', () => {
  it('reads bucket, prefix, endpoint and region, forcing path-style with an endpoint', () => {
    expect(parseS3Location('s3://boxes/prod/yard?endpoint=http://127.0.0.1:9000&region=eu-west-1')).toEqual({
      bucket: 'boxes',
      prefix: 'prod/yard/',
      endpoint: 'http://127.0.0.1:9000',
      region: 'eu-west-1',
      forcePathStyle: true,
    });
  });

  it('defaults to AWS S3 in us-east-1, virtual-hosted, with no prefix', () => {
    for (const value of ['s3://boxes', 's3://boxes/', 's3://boxes//']) {
      expect(parseS3Location(value)).toEqual({
        bucket: 'boxes',
        prefix: '',
        endpoint: undefined,
        region: 'us-east-1',
        forcePathStyle: false,
      });
    }
  });

  it('reads a public endpoint for presigned URLs, validated like the endpoint, path-style following the endpoint', () => {
    expect(
      parseS3Location('s3://boxes/p?endpoint=http://minio:9000&public_endpoint=https%3A%2F%2Fs3.example.org%2F'),
    ).toEqual({
      bucket: 'boxes',
      prefix: 'p/',
      endpoint: 'http://minio:9000',
      publicEndpoint: 'https://s3.example.org',
      region: 'us-east-1',
      forcePathStyle: true,
    });
    expect(parseS3Location('s3://boxes/p?endpoint=http://minio:9000').publicEndpoint).toBeUndefined();
    expect(parseS3Location('s3://boxes/p?public_endpoint=https://cdn.example.org/s3')).toMatchObject({
      endpoint: undefined,
      publicEndpoint: 'https://cdn.example.org/s3',
      forcePathStyle: false,
    });
  });

  it('normalises the prefix to end in one slash, and decodes it', () => {
    expect(parseS3Location('s3://boxes/a//b/').prefix).toBe('a/b/');
    expect(parseS3Location('s3://boxes/a%20b').prefix).toBe('a b/');
    expect(parseS3Location('s3://boxes/a?endpoint=https%3A%2F%2Fs3.example%2F').endpoint).toBe('https://s3.example');
  });

  it.each([
    ['http://boxes/x', 'the scheme must be s3://'],
    ['s3:///x', 'not a valid bucket name'],
    ['s3://Boxes/x', 'not a valid bucket name'],
    ['s3://bo_xes/x', 'not a valid bucket name'],
    ['s3://boxes:9000/x', 'has no port'],
    ['s3://key:secret@boxes/x', 'credentials do not belong in the URL'],
    ['s3://boxes/x?endpoint=ftp://host', 'http:// or https://'],
    ['s3://boxes/x?endpoint=not a url', 'is not a URL'],
    ['s3://boxes/x?endpoint=http://k:secret@host', 'may not carry credentials'],
    ['s3://boxes/x?regoin=eu-west-1', 'unknown parameter "regoin" (known: endpoint, public_endpoint, region)'],
    [
      's3://boxes/x?endpoint=http://minio:9000&public_endpoint=ftp://host',
      'the public_endpoint must be an http:// or https:// URL',
    ],
    ['s3://boxes/x?public_endpoint=s3.example.org', 'the public_endpoint "s3.example.org" is not a URL'],
    ['s3://boxes/x?public_endpoint=https://k:secret@s3.example.org', 'the public_endpoint may not carry credentials'],
    [
      's3://boxes/x?public_endpoint=https://s3.example.org/?a=b',
      'the public_endpoint may not have a query or fragment',
    ],
    ['s3://boxes/x?region=EU%20West', 'is not a region name'],
    ['s3://boxes/a/%2E%2E%2Fb', '".." segments'],
    ['s3://boxes/%E0%A4%A', 'percent-encoding'],
    ['not a url', 'not a URL'],
  ])('refuses %s, naming the setting', (value, why) => {
    let thrown: unknown;
    try {
      parseS3Location(value);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ValidationError);
    expect(thrown).toMatchObject({ code: 'validation', field: 'blobs' });
    expect((thrown as Error).message).toContain('--blobs, BOXYARD_BLOBS');
    expect((thrown as Error).message).toContain(why);
    expect((thrown as Error).message).not.toContain('secret');
  });
});
