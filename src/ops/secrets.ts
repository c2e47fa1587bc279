/**
 * RPC and service URLs often carry an API key in their path or query (`https://host/v3/<key>`). Once registered,
 * such a URL is shown as `https://host/***` wherever routekeeper writes text: logs, errors, the ledger, webhooks.
 */

/** The URL with its user info, path, query and fragment replaced: what is left names the host only. */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '***';
  }
  const secretPart = parsed.username !== '' || parsed.password !== '' || (parsed.pathname !== '/' && parsed.pathname !== '') || parsed.search !== '' || parsed.hash !== '';
  return secretPart ? `${parsed.protocol}//${parsed.host}/***` : parsed.origin;
}

const secretUrls = new Set<string>();

/** Remembers a URL whose secret part must never be written (no-op for none). */
export function registerSecretUrl(url: string | undefined): void {
  if (!url) return;
  const redacted = redactUrl(url);
  // The URL as given, and as URL parsers and HTTP clients print it (a trailing slash added, host lower-cased).
  for (const form of [url, url.replace(/\/+$/, ''), URL.canParse(url) ? new URL(url).href : url]) {
    if (form !== redacted && form.length > 0) secretUrls.add(form);
  }
}

/** The text with every registered URL redacted. */
export function scrub(text: string): string {
  let clean = text;
  // Longest first, so a URL is not half-replaced by a shorter form of itself.
  for (const url of [...secretUrls].sort((a, b) => b.length - a.length)) {
    if (clean.includes(url)) clean = clean.split(url).join(redactUrl(url));
  }
  return clean;
}

/** Every string inside a value (objects, arrays, errors' messages) scrubbed; other values kept. */
export function scrubDeep<T>(value: T): T {
  if (secretUrls.size === 0) return value;
  if (typeof value === 'string') return scrub(value) as T;
  if (Array.isArray(value)) return value.map(scrubDeep) as T;
  if (value instanceof Error) return Object.assign(new Error(scrub(value.message)), { name: value.name, stack: value.stack && scrub(value.stack) }) as T;
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, scrubDeep(inner)])) as T;
  }
  return value;
}
