import { userInfo as osUserInfo } from "node:os";
/**
 * A connection URL as it may be shown: in errors, statuses, logs and `path`
 * strings. The password (user-info or a `password=` parameter) never appears.
 */
export function describeConnection(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not a URL: show only the scheme, never the rest (it may hold a password).
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1] ?? "postgres";
    return `${scheme}://(unparsable URL)`;
  }
  const user = parsed.username ? `${parsed.username}@` : "";
  const port = parsed.port ? `:${parsed.port}` : "";
  return `${parsed.protocol}//${user}${parsed.hostname}${port}${parsed.pathname === "/" ? "" : parsed.pathname}`;
}

/** Every form the URL's secrets may take in a message: raw, percent-decoded and encoded. */
export function connectionSecrets(url: string): string[] {
  const found = new Set<string>();
  const add = (value: string | null | undefined) => {
    if (!value) return;
    found.add(value);
    try {
      found.add(decodeURIComponent(value));
    } catch {
      // a malformed escape: the raw form is enough
    }
    found.add(encodeURIComponent(value));
  };
  // By hand as well as by URL: a URL that does not parse still has a password in it.
  const userInfo = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)@/i.exec(url)?.[1];
  if (userInfo?.includes(":")) add(userInfo.slice(userInfo.indexOf(":") + 1));
  for (const match of url.matchAll(/[?&]password=([^&#]*)/gi)) add(match[1]);
  try {
    const parsed = new URL(url);
    add(parsed.password);
    add(parsed.searchParams.get("password"));
  } catch {
    // covered by the patterns above
  }
  return [...found].filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
}

const USER_INFO_PASSWORD = /\b(postgres(?:ql)?:\/\/[^:/?#@\s]*):[^@\s]*@/gi;

/** `text` with every secret of the URL, and any `postgres://user:…@` password, replaced. */
export function scrubConnectionSecrets(text: string, secrets: readonly string[]): string {
  let out = text.replace(USER_INFO_PASSWORD, "$1@");
  for (const secret of secrets) out = out.split(secret).join("***");
  return out;
}

/**
 * The URL with the user name libpq would use: a URL that names no user (`postgres://host/db`), with no
 * `user=` parameter and no `PGUSER`, connects as the operating-system user, as `psql` does. The `pg`
 * driver falls back to `$USER` only, and fails when it is unset (a service, a container, `env -i`).
 */
export function withDefaultUser(url: string, env: Record<string, string | undefined> = process.env): string {
  if (env.PGUSER || env.USER) return url;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if (parsed.username || parsed.searchParams.has("user")) return url;
  let name: string;
  try {
    name = osUserInfo().username;
  } catch {
    return url;
  }
  if (!name) return url;
  // As a parameter, not user-info: a socket URL (`postgres:///db?host=/run/postgresql`) has no host to hang it on.
  return `${url}${parsed.search ? "&" : "?"}user=${encodeURIComponent(name)}`;
}
