import { requestHeaders, urlOf } from '../../api/client';
import { errorFromResponse, networkError } from '../../api/errors';

/**
 * Downloads a stored document's file. A plain link cannot carry the scope headers (a live document
 * is not found in test), so the file is fetched with them and saved through a Blob URL.
 */
export async function downloadDocument(id: string, fileName: string): Promise<void> {
  let res: Response;
  try {
    res = await fetch(urlOf(`/v1/documents/${encodeURIComponent(id)}/download`), {
      credentials: 'same-origin',
      headers: { ...requestHeaders('GET', false), Accept: '*/*' },
    });
  } catch (cause) {
    throw networkError(cause);
  }
  if (!res.ok) {
    const body: unknown = await res.json().catch(() => null);
    throw errorFromResponse(res.status, body, res.headers.get('Request-Id'));
  }
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName || 'document';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
