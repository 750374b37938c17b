// Text that goes into a GitHub comment or check run: every user-provided string made inert (no link, image,
// mention, reference or HTML), and link destinations limited to http(s). Shared by the PR comment and the
// verdict's rows, which render into both the comment and the check run.

const ZWSP = '\u200b';

/**
 * One line of inert text: HTML special characters as entities, Markdown punctuation backslash-escaped
 * (no link, image, emphasis, code or table cell can start), and a zero-width space after `@` and `#` and
 * inside `://`, `www.` and long hex runs, so GitHub's autolinks (mentions, issue references, URLs,
 * e-mail addresses, commit shas) do not fire. Newlines become spaces; at most `max` characters kept.
 */
export function inline(text: string, max = 300): string {
  // eslint-disable-next-line no-control-regex
  let t = text
    .replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (t.length > max) t = `${t.slice(0, max - 1)}…`;
  t = t.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
  t = t.replace(/[\\`*_{}[\]()#+\-.!|~:=]/g, (c) => `\\${c}`);
  t = t.replace(/@/g, `@${ZWSP}`).replace(/#/g, `#${ZWSP}`);
  t = t.replace(/:\/\//g, `:${ZWSP}//`).replace(/www/gi, (w) => `${w.slice(0, 1)}${ZWSP}${w.slice(1)}`);
  t = t.replace(/([0-9a-f]{6})(?=[0-9a-f])/gi, `$1${ZWSP}`);
  return t;
}

/** A URL as a Markdown link destination: only our own or checked http(s) URLs, with nothing that could end it. */
export function destination(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  return parsed.href.replace(
    /[\s()<>[\]"'`\\]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  );
}
