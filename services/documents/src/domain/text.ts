/**
 * Text safe to show to a person: no control characters (C0 except tab and newline, DEL, C1), no
 * bidi overrides or isolates, no zero-width or interlinear characters, no lone surrogates (replaced
 * by U+FFFD), so that a name can neither reorder nor hide the text around it.
 */
export function displayText(s: string, { keepNewlines = true } = {}): string {
  const controls = keepNewlines
    ? // eslint-disable-next-line no-control-regex
      /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]/g
    : // eslint-disable-next-line no-control-regex
      /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]/g;
  return s.replace(controls, '').replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}
