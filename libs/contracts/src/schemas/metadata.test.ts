import { compileBody, toDetails } from '../validate';
import { obj } from './common';
import { Optional } from '@sinclair/typebox';
import { mergeMetadata, metadataInput, metadataOnCreate, patchedMetadata } from './metadata';

const validate = compileBody(obj({ metadata: Optional(metadataInput) }));
const details = (metadata: unknown) => (validate({ metadata }) ? [] : toDetails(validate.errors));

describe('metadata (API-DECISIONS §11)', () => {
  it('takes up to 50 keys of 1–40 characters with values up to 500', () => {
    const m = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`.padEnd(40, 'x'), 'v'.repeat(500)]));
    expect(details(m)).toEqual([]);
    expect(details({})).toEqual([]);
  });
  it('refuses too many keys, naming the field', () => {
    const m = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, 'v']));
    expect(details(m)).toContainEqual(expect.objectContaining({ field: '/metadata', issue: 'too_many' }));
  });
  it('refuses bad keys and long or non-string values, naming the key', () => {
    expect(details({ 'a[b]': 'x' })).toEqual([expect.objectContaining({ field: '/metadata/a[b]', issue: 'invalid_format' })]);
    expect(details({ ['k'.repeat(41)]: 'x' })).toEqual([expect.objectContaining({ field: `/metadata/${'k'.repeat(41)}`, issue: 'too_long' })]);
    expect(details({ '': 'x' })).toEqual([expect.objectContaining({ field: '/metadata/', issue: 'too_short' })]);
    expect(details({ a: 'v'.repeat(501) })).toEqual([expect.objectContaining({ field: '/metadata/a', issue: 'too_long' })]);
    expect(details({ a: 1 })).toEqual([expect.objectContaining({ field: '/metadata/a', issue: 'invalid_type' })]);
    expect(details({ a: { b: 'c' } })).toEqual([expect.objectContaining({ field: '/metadata/a', issue: 'invalid_type' })]);
    expect(details('x')).toEqual([expect.objectContaining({ field: '/metadata', issue: 'invalid_type' })]);
  });
  it('drops "" on create and removes it on merge', () => {
    expect(metadataOnCreate({ a: '1', b: '' })).toEqual({ a: '1' });
    expect(metadataOnCreate(undefined)).toEqual({});
    expect(mergeMetadata({ a: '1', b: '2' }, { b: '', c: '3' })).toEqual({ a: '1', c: '3' });
    expect(mergeMetadata({ a: '1' }, undefined)).toEqual({ a: '1' });
  });
});

describe('metadata keys that name Object.prototype members', () => {
  it('keeps __proto__ and constructor as plain keys', () => {
    const given = JSON.parse('{"__proto__":"p","constructor":"c"}') as Record<string, string>;
    const created = metadataOnCreate(given);
    expect(Object.keys(created)).toEqual(['__proto__', 'constructor']);
    expect(JSON.parse(JSON.stringify(created))).toEqual(given);
    const merged = mergeMetadata(created, JSON.parse('{"__proto__":"","toString":"t"}') as Record<string, string>);
    expect(Object.keys(merged)).toEqual(['constructor', 'toString']);
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
  });
});

describe('patchedMetadata (PATCH)', () => {
  it('merges metadata, removes keys set to "", leaves it alone when absent', () => {
    expect(patchedMetadata({ a: '1', b: '2' }, { b: '', c: '3' })).toEqual({ a: '1', c: '3' });
    const current = { a: '1' };
    expect(patchedMetadata(current, undefined)).toBe(current);
  });

  it('refuses a merge past 50 keys with 400 on /metadata', () => {
    const full = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v']));
    expect(() => patchedMetadata(full, { more: 'v' })).toThrow(
      expect.objectContaining({ code: 'validation_failed', details: [expect.objectContaining({ field: '/metadata', issue: 'too_many' })] }),
    );
    expect(Object.keys(patchedMetadata(full, { k1: '', more: 'v' }))).toHaveLength(50);
  });
});
