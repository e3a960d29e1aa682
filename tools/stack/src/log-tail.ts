import fs from 'node:fs';

/** The last `lines` non-empty-ended lines of a log file from byte offset `from` ([] when unreadable). */
export function tailLines(file: string, lines: number, from = 0): string[] {
  let text: string;
  try {
    text = fs.readFileSync(file).subarray(from).toString('utf8').trim();
  } catch {
    return [];
  }
  return text ? text.split('\n').slice(-lines) : [];
}
