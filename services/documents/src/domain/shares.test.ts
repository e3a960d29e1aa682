import { type RenderRow, type ShareRow, isShareToken, renderDto, shareDto } from './shares';

const share: ShareRow = {
  id: 's1',
  organization_id: 'o1',
  connected_app_id: 'a1',
  environment: 'test',
  api_key_id: 'k1',
  record_type: 'invoice',
  record_id: 'i1',
  render_id: 'r1',
  token: 'A'.repeat(43),
  status: 'active',
  created_at: new Date('2026-11-01T10:00:00Z'),
  revoked_at: null,
};

describe('shares and renders', () => {
  it("builds the portal url under the gateway's public URL, with or without a trailing slash", () => {
    expect(shareDto(share, 'https://books.example.com').url).toBe(`https://books.example.com/portal/${share.token}`);
    expect(shareDto(share, 'https://example.com/books//').url).toBe(`https://example.com/books/portal/${share.token}`);
  });

  it('shows revoked_at only once revoked, as ISO text', () => {
    expect(shareDto(share, 'http://x').revoked_at).toBeNull();
    expect(shareDto({ ...share, status: 'revoked', revoked_at: new Date('2026-11-02T00:00:00Z') }, 'http://x')).toMatchObject({
      status: 'revoked',
      revoked_at: '2026-11-02T00:00:00.000Z',
    });
  });

  it('shows a render as a PDF of its record, without its storage key', () => {
    const render: RenderRow = {
      id: 'r1',
      organization_id: 'o1',
      environment: 'test',
      record_type: 'estimate',
      record_id: 'e1',
      status: 'ready',
      file_name: 'estimate-E-1.pdf',
      size_bytes: '2048',
      sha256: 'cd'.repeat(32),
      storage_key: 'o1/test/r1',
      created_at: new Date('2026-11-01T10:00:00Z'),
    };
    expect(renderDto(render)).toEqual({
      id: 'r1',
      status: 'ready',
      document_type: 'estimate',
      record_id: 'e1',
      content_type: 'application/pdf',
      file_name: 'estimate-E-1.pdf',
      size_bytes: 2048,
      created_at: '2026-11-01T10:00:00.000Z',
    });
  });

  it('looks up only tokens of the issued shape (32 bytes, base64url)', () => {
    expect(isShareToken('aZ09_-'.repeat(7) + 'x')).toBe(true);
    expect(isShareToken('A'.repeat(42))).toBe(false);
    expect(isShareToken('A'.repeat(44))).toBe(false);
    expect(isShareToken('A'.repeat(42) + '\u0000')).toBe(false);
    expect(isShareToken('A'.repeat(42) + '=')).toBe(false);
  });
});
