import { type DocumentRow, documentDto } from './documents';

const row: DocumentRow = {
  id: 'd1',
  organization_id: 'o1',
  connected_app_id: 'a1',
  environment: 'test',
  file_name: 'receipt.pdf',
  document_type: null,
  source: null,
  status: 'uploaded',
  declared_content_type: 'application/pdf',
  content_type: 'application/pdf',
  size_bytes: '1024',
  sha256: 'ab'.repeat(32),
  storage_key: 'o1/test/d1',
  idempotency_key: null,
  link_record_type: null,
  link_record_id: null,
  created_at: new Date('2026-11-01T10:00:00Z'),
  finalized_at: new Date('2026-11-01T10:00:01Z'),
};

describe('documentDto', () => {
  it('shows a stored null type as other, bigint sizes as numbers, and no linked_record_id without links', () => {
    const dto = documentDto(row, []);
    expect(dto).toMatchObject({ document_type: 'other', size_bytes: 1024, links: [], created_at: '2026-11-01T10:00:00.000Z' });
    expect(dto).not.toHaveProperty('linked_record_id');
    expect(dto).not.toHaveProperty('storage_key');
  });

  it('names the last link as linked_record_id and lists every link', () => {
    const links = [
      { document_id: 'd1', record_type: 'invoice' as const, record_id: 'r1', linked_at: new Date('2026-11-02T00:00:00Z') },
      { document_id: 'd1', record_type: 'customer' as const, record_id: 'r2', linked_at: new Date('2026-11-03T00:00:00Z') },
    ];
    const dto = documentDto(row, links);
    expect(dto.linked_record_id).toBe('r2');
    expect(dto.links).toEqual([
      { record_type: 'invoice', record_id: 'r1', linked_at: '2026-11-02T00:00:00.000Z' },
      { record_type: 'customer', record_id: 'r2', linked_at: '2026-11-03T00:00:00.000Z' },
    ]);
  });

  it('never shows pending as a status of its own', () => {
    expect(documentDto({ ...row, status: 'pending', content_type: null }, []).status).toBe('needs_review');
  });
});
