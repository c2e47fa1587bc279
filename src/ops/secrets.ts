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
  const secretPart =
    parsed.username !== '' || parsed.password !== '' || (parsed.pathname !== '/' && parsed.pathname !== '') || parsed.search !== '' || parsed.hash !== '';
  return secretPart ? `${parsed.protocol}//${parsed.host}/***` : parsed.origin;
}

/**
 * Registered text to redact, and what each becomes: a URL by its redacted form, a bare secret by `***`. Shared state,
 * not a cache: a secret read anywhere must be hidden from every log line and error the process writes after.
 */
const secrets = new Map<string, string>();

/** The parts of a URL that may be a key on their own: its password and long path segments and query values. */
const minimumSecretLength = 12;

/**
 * Remembers a URL whose secret part must never be written (no-op for none): the URL as given and in every form a
 * library prints it (a trailing slash added or taken off, the host lower-cased, the user:password left out, as viem
 * does), and its secret parts alone (the password, a path segment or query value long enough to be a key), which a
 * provider may echo in an error without the URL.
 */
export function registerSecretUrl(url: string | undefined): void {
  if (!url) return;
  const redacted = redactUrl(url);
  const forms = [url, url.replace(/\/+$/, '')];
  if (URL.canParse(url)) {
    const parsed = new URL(url);
    forms.push(parsed.href, parsed.href.replace(/\/+$/, ''));
    if (parsed.username !== '' || parsed.password !== '') {
      const bare = new URL(parsed.href);
      bare.username = '';
      bare.password = '';
      forms.push(bare.href, bare.href.replace(/\/+$/, ''));
    }
    // A database URL's path names the database, not a key: only its password is secret alone.
    const database = parsed.protocol.startsWith('postgres');
    const parts = [decodedPart(parsed.password), ...(database ? [] : [...parsed.pathname.split('/').map(decodedPart), ...parsed.searchParams.values()])];
    for (const part of parts) if (part.length >= minimumSecretLength) registerSecret(part);
  }
  for (const form of forms) if (form !== redacted && form.length > 0) secrets.set(form, redacted);
}

/** Remembers a secret value (an API key) that must never be written: shown as `***` (no-op for none). */
export function registerSecret(value: string | undefined): void {
  if (value && value.length > 0 && !secrets.has(value)) secrets.set(value, '***');
}

function decodedPart(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** The text with every registered URL and secret redacted. */
export function scrub(text: string): string {
  let clean = text;
  // Longest first, so a URL is not half-replaced by a shorter form of itself, nor by a secret it contains.
  for (const [secret, shown] of [...secrets].sort(([a], [b]) => b.length - a.length)) {
    if (clean.includes(secret)) clean = clean.split(secret).join(shown);
  }
  return clean;
}

/** Every string inside a value (objects, arrays, errors' messages) scrubbed; other values kept. */
export function scrubDeep<T>(value: T): T {
  if (secrets.size === 0) return value;
  if (typeof value === 'string') return scrub(value) as T;
  if (Array.isArray(value)) return value.map(scrubDeep) as T;
  if (value instanceof Error) return Object.assign(new Error(scrub(value.message)), { name: value.name, stack: value.stack && scrub(value.stack) }) as T;
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, scrubDeep(inner)])) as T;
  }
  return value;
}
