import { describe, expect, it } from 'vitest';
import { isLoopback, normalizeHost } from './host-names';

describe('isLoopback', () => {
  it.each([
    'localhost',
    'LOCALHOST',
    'localhost.',
    ' localhost ',
    '127.0.0.1',
    '127.8.9.1',
    '127.255.255.254',
    '::1',
    '[::1]',
    '[::1%lo]',
    '0:0:0:0:0:0:0:1',
    '0000:0000:0000:0000:0000:0000:0000:0001',
    '::ffff:127.0.0.1',
    '[::ffff:127.0.0.1]',
    '::FFFF:7f00:1',
  ])('%s is loopback', (host) => {
    expect(isLoopback(host)).toBe(true);
  });

  it.each([
    '',
    '0.0.0.0',
    '::',
    '[::]',
    '10.0.0.1',
    '192.168.1.20',
    '128.0.0.1',
    '::2',
    '::ffff:10.0.0.1',
    'fe80::1',
    '::127.0.0.1',
    '127.example.com',
    '127.0.0.1.nip.io',
    'localhost.example.com',
    'mylocalhost',
    '127.1',
    '0x7f.0.0.1',
    '2130706433',
  ])('%s is not', (host) => {
    expect(isLoopback(host)).toBe(false);
  });
});

describe('normalizeHost', () => {
  it.each([
    ['Lab.Example.COM.', 'lab.example.com'],
    ['[FE80::1%eth0]', 'fe80::1'],
    ['[::1]', '::1'],
    [' boxyard.lan ', 'boxyard.lan'],
    ['10.0.0.1', '10.0.0.1'],
  ])('%s is %s', (name, want) => {
    expect(normalizeHost(name)).toBe(want);
  });
});
