import { displayText } from './text';

/** The longest file name kept (in UTF-16 code units, cut on a code point boundary). */
export const FILE_NAME_MAX = 255;

/**
 * A file name safe to show and to put in Content-Disposition: no directory parts (either slash),
 * no control characters (C0, DEL, C1), no bidi overrides or isolates, no zero-width characters,
 * no leading dots, at most FILE_NAME_MAX long; 'file' when nothing is left. Display only: storage
 * keys never use it.
 */
export function sanitizeFileName(raw: string): string {
  const base = raw.split(/[/\\]/).pop() ?? '';
  const cleaned = displayText(base.normalize('NFC'), { keepNewlines: false })
    .replace(/\ufffd/g, '')
    .replace(/^[.\s]+/, '')
    .trim();
  const cut = Array.from(cleaned).reduce((acc, ch) => (acc.length + ch.length <= FILE_NAME_MAX ? acc + ch : acc), '');
  return cut.length > 0 ? cut : 'file';
}
