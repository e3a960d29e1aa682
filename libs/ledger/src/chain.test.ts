import { createHash } from 'node:crypto';
import { GENESIS_HASH, HASH_PATTERN, type ChainEntry, canonicalEntry, chainHash } from './chain';
import { invoiceChainEntry } from './chain.test-data';

const ENTRY = invoiceChainEntry('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb');

describe('canonicalEntry', () => {
  it('is a fixed-order JSON array of the entry and its lines in order', () => {
    expect(canonicalEntry(ENTRY)).toBe(
      '["je1","44444444-4444-4444-8444-444444444444","2026-01-15","invoice","11111111-1111-4111-8111-111111111111",null,null,' +
        '[["aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa","1100","debit",500,null,"11111111-1111-4111-8111-111111111111",null,null,null],' +
        '["bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb","4000","credit",500,null,null,null,null,"why?"]]]',
    );
  });

  it('does not depend on the case of ids (Postgres prints them lower-case)', () => {
    expect(canonicalEntry({ ...ENTRY, id: ENTRY.id.toUpperCase(), sourceId: ENTRY.sourceId.toUpperCase() })).toBe(canonicalEntry(ENTRY));
  });

  it('changes with every field it covers', () => {
    const base = canonicalEntry(ENTRY);
    const line0 = ENTRY.lines[0]!;
    const variants: ChainEntry[] = [
      { ...ENTRY, id: '55555555-5555-4555-8555-555555555555' },
      { ...ENTRY, entryDate: '2026-01-16' },
      { ...ENTRY, sourceType: 'payment' },
      { ...ENTRY, sourceId: '22222222-2222-4222-8222-222222222222' },
      { ...ENTRY, memo: '' },
      { ...ENTRY, reversesEntryId: '55555555-5555-4555-8555-555555555555' },
      { ...ENTRY, lines: [ENTRY.lines[1]!, line0] },
      { ...ENTRY, lines: [line0] },
      { ...ENTRY, lines: [{ ...line0, amountCents: 501 }, ENTRY.lines[1]!] },
      { ...ENTRY, lines: [{ ...line0, accountCode: '1000' }, ENTRY.lines[1]!] },
      { ...ENTRY, lines: [{ ...line0, accountId: 'cccccccc-cccc-4ccc-8ccc-cccccccccccc' }, ENTRY.lines[1]!] },
      { ...ENTRY, lines: [{ ...line0, side: 'credit' }, ENTRY.lines[1]!] },
      { ...ENTRY, lines: [{ ...line0, customerId: '33333333-3333-4333-8333-333333333333' }, ENTRY.lines[1]!] },
      { ...ENTRY, lines: [{ ...line0, invoiceId: null }, ENTRY.lines[1]!] },
      { ...ENTRY, lines: [{ ...line0, vendorId: '33333333-3333-4333-8333-333333333333' }, ENTRY.lines[1]!] },
      { ...ENTRY, lines: [{ ...line0, billId: '33333333-3333-4333-8333-333333333333' }, ENTRY.lines[1]!] },
      { ...ENTRY, lines: [{ ...line0, memo: 'x' }, ENTRY.lines[1]!] },
    ];
    const seen = new Set([base, ...variants.map(canonicalEntry)]);
    expect(seen.size).toBe(variants.length + 1);
  });

  it('keeps text that looks like a separator apart (no ambiguity between fields)', () => {
    expect(canonicalEntry({ ...ENTRY, sourceType: 'a","b', memo: null })).not.toBe(canonicalEntry({ ...ENTRY, sourceType: 'a', memo: 'b' }));
  });
});

describe('chainHash', () => {
  it('is SHA-256 of the previous hash, a newline and the canonical entry, in hex', () => {
    const h = chainHash(GENESIS_HASH, ENTRY);
    expect(h).toMatch(HASH_PATTERN);
    expect(h).toBe(
      createHash('sha256')
        .update(`${GENESIS_HASH}\n${canonicalEntry(ENTRY)}`)
        .digest('hex'),
    );
  });

  it('chains: the same entry after a different previous hash hashes differently', () => {
    const first = chainHash(GENESIS_HASH, ENTRY);
    expect(chainHash(first, ENTRY)).not.toBe(first);
    expect(chainHash(first, ENTRY)).toBe(chainHash(first, { ...ENTRY }));
  });

  it('is stable across releases (a stored chain must keep verifying)', () => {
    expect(chainHash(GENESIS_HASH, ENTRY)).toBe(chainHash(GENESIS_HASH, JSON.parse(JSON.stringify(ENTRY)) as ChainEntry));
    expect(chainHash(GENESIS_HASH, ENTRY)).toBe('e7281a1f515d0a646e697de5ef2e8fb3aead2153789f6279bcb4794be3cb19c5');
  });
});
