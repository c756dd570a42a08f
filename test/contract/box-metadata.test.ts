import { describe, expect, it } from 'vitest';
import {
  architectureOf,
  architectureRefusal,
  BoxMetadataError,
  MAX_METADATA_BYTES,
  parseBoxMetadata,
  providerRefusal,
  UNSTATED_ARCHITECTURE,
} from '../../daemon/src/contract/box-metadata';

const bytes = (text: string) => new TextEncoder().encode(text);

describe("what a .box's metadata.json says", () => {
  it('reads provider and architecture, and ignores other keys and keys of another type', () => {
    expect(parseBoxMetadata(bytes('{"provider":"libvirt","architecture":"arm64","format":"qcow2"}'))).toEqual({
      provider: 'libvirt',
      architecture: 'arm64',
    });
    expect(parseBoxMetadata(bytes('{"provider":7,"architecture":null}'))).toEqual({});
  });

  it.each([
    ['too large', bytes(`{"provider":"${'x'.repeat(MAX_METADATA_BYTES)}"}`), /larger than 64 KiB/],
    ['not JSON', bytes('{"provider":'), /not valid JSON/],
    ['not UTF-8', new Uint8Array([0x7b, 0xff, 0x7d]), /not valid JSON/],
    ['an array', bytes('["virtualbox"]'), /not a JSON object/],
    ['null', bytes('null'), /not a JSON object/],
  ])('refuses a metadata.json that is %s', (_name, body, words) => {
    expect(() => parseBoxMetadata(body)).toThrow(BoxMetadataError);
    expect(() => parseBoxMetadata(body)).toThrow(words);
  });

  it('refuses a provider name the contract refuses, in words that show at most 40 characters of it', () => {
    expect(providerRefusal('libvirt')).toBeNull();
    expect(providerRefusal('../virtualbox')).toMatch(
      /names the provider "..\/virtualbox", which is refused: a provider/,
    );
    const long = providerRefusal(`a${'b'.repeat(10_000)}`) ?? '';
    expect(long).toMatch(/must be at most 64 characters/);
    expect(long.length).toBeLessThan(200);
  });

  it('refuses an architecture vagrant does not know; one the file does not name is UNSTATED_ARCHITECTURE', () => {
    expect(architectureRefusal('arm64')).toBeNull();
    expect(architectureRefusal('x86_64')).toMatch(/names the architecture "x86_64", which vagrant does not know/);
    expect(architectureOf({ architecture: 'arm64' })).toBe('arm64');
    expect(architectureOf({})).toBe(UNSTATED_ARCHITECTURE);
    expect(UNSTATED_ARCHITECTURE).toBe('amd64');
  });
});
