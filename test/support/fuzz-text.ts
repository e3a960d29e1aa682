/** Text helpers of the fuzz cases: percent-encoding, JSON that may not parse, nesting depth. */

export function safeParse(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Node's HTTP server answers a request head over 16 KiB with a bare 431 (no envelope, no
 * Request-Id) before the gateway sees it (reported, not the gateway's to fix here): the generated
 * path and query values stay under 4,000 characters each.
 */
export function capped(encoded: string): string {
  return encoded.length <= 4000 ? encoded : encoded.slice(0, 4000).replace(/%[0-9A-Fa-f]?$/, '');
}

/** encodeURIComponent, also for a lone surrogate (sent as its UTF-8 replacement, as a browser would). */
export function pct(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  }
}

export function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export function stringsOf(v: unknown, out: string[], depth = 0): void {
  if (depth > 200) return;
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) v.forEach((x) => stringsOf(x, out, depth + 1));
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      out.push(k);
      stringsOf(x, out, depth + 1);
    }
  }
}

/** Bracket depth of a JSON text, outside strings (also for text that is not valid JSON). */
export function nestingDepth(text: string | undefined): number {
  if (!text) return 0;
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '[' || ch === '{') max = Math.max(max, ++depth);
    else if (ch === ']' || ch === '}') depth--;
  }
  return max;
}
