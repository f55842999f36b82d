import type { SecretRule } from "./types.js";
import { isNameLike, isPlaceholderOrCode, looksLikeAssignedSecret, looksRandom } from "./values.js";

/**
 * Secrets found by where they sit in a structure: URL user-info and signed
 * URL queries, HTTP auth headers and cookies, command-line flags, Docker's
 * `auth` JSON, Azure connection strings.
 */

/** A flag value: quoted, or an unquoted shell word. */
const FLAG_VALUE = String.raw`(?:"(?<secret>[^"\r\n]{1,300})"|'(?<secret2>[^'\r\n]{1,300})'|(?<secret3>[^\s"'\x60;|&<>]{1,300}))`;

/** A command-line value that is a credential, not a variable, a substitution, another flag or a path. */
function flagValue(secret: string): boolean {
  return !secret.startsWith("-") && !/^\$|^`/.test(secret) && looksLikeAssignedSecret(secret);
}

export const STRUCTURED_RULES: readonly SecretRule[] = [
  {
    kind: "bearer_token",
    pattern: /\b(?:(?:[Aa]uthorization|AUTHORIZATION)\\?["']?[ \t]*[:=][ \t]*\\?["']?)?(?:[Bb]earer|[Tt]oken|[Bb]asic|BEARER|TOKEN|BASIC)\s+(?<secret>[A-Za-z0-9._~+/-]{16,}=*)/g,
    screen: ["earer\\s+[A-Za-z0-9._~+/-]{16}", "oken\\s+[A-Za-z0-9._~+/-]{16}", "asic\\s+[A-Za-z0-9._~+/-]{16}"],
    // Bearer / Basic, or an Authorization header, always; after the bare word "token" ("the token 3f2a… expired",
    // "token packages/core/src/x.ts") only a machine-random value.
    accept: (s, m) => /^(?:b|authorization)/i.test(m) || looksRandom(s, 16),
  },
  {
    kind: "url_password",
    // scheme://user:secret@host, also with no user (redis://:secret@host).
    pattern: /\b[a-z][a-z0-9+.-]{1,20}:\/\/[^\s:/@"'<>]{0,100}:(?<secret>[^\s@/"'<>]{1,200})@/gi,
    screen: [":\\/\\/[^\\s:/@\"'<>]{0,100}:[^\\s@/\"'<>]{1,200}@"],
    accept: (s) => !isPlaceholderOrCode(s) && !/^\$\{?\w+\}?$/.test(s),
  },
  {
    kind: "signed_url",
    // The signature (and session token) of an Azure SAS URL or an S3 / GCS pre-signed URL.
    pattern: /[?&;](?:sig|Signature|X-Amz-Signature|X-Goog-Signature|X-Amz-Security-Token|x-amz-signature|x-goog-signature)=(?<secret>[A-Za-z0-9%+/=._-]{16,})/g,
    screen: ["sig=", "signature=", "security-token="],
  },
  {
    kind: "azure_key",
    // Azure storage / service bus connection strings: `AccountKey=<base64>`, `SharedAccessKey=<base64>`.
    pattern: /\b(?:AccountKey|SharedAccessKey)=(?<secret>[A-Za-z0-9+/]{20,}={0,2})/g,
    screen: ["AccountKey=", "SharedAccessKey="],
  },
  {
    kind: "docker_auth",
    // ~/.docker/config.json: "auth": "<base64 user:password>", "identitytoken": "…", "registrytoken": "…".
    pattern: /\\?"(?:auth|identitytoken|identityToken|IdentityToken|registrytoken|registryToken|RegistryToken)\\?"[ \t]*:[ \t]*\\?"(?<secret>[A-Za-z0-9+/=_.-]{8,})\\?"/g,
    screen: ["auth\\\\?\"", "identitytoken", "registrytoken"],
    accept: (s) => !isPlaceholderOrCode(s),
  },
  {
    kind: "session_cookie",
    // A Cookie / Set-Cookie header (or cookie field) holding at least one name=value of 8+ characters: the whole value.
    pattern: /(?<![\w-])(?:[Ss]et-)?(?:[Cc]ookie|COOKIE)\\?["']?[ \t]*[:=][ \t]*\\?["']?(?<secret>[^\r\n"'\\]{0,2000}?=[^\r\n"'\\;]{8,2000}(?:;[^\r\n"'\\]{0,2000})?)/g,
    screen: ["cookie\\\\?[\"']?[ \\t]*[:=]"],
    accept: (s) => !isPlaceholderOrCode(s),
  },
  {
    kind: "session_cookie",
    // curl -b / --cookie 'name=value'.
    pattern: /(?<![\w-])(?:-b|--cookie)(?:[ \t]+|=)(?:"(?<secret>[^"\s]{0,300}=[^"\r\n]{8,300})"|'(?<secret2>[^'\s]{0,300}=[^'\r\n]{8,300})'|(?<secret3>[^\s"']{0,300}=[^\s"']{8,300}))/g,
    // The first cookie's name has no space, so the screen scans one word, not the rest of the line.
    screen: ["-b[ \\t]+[\"']?[^\\s\"']{0,300}=", "-b=[\"']?[^\\s\"']{0,300}=", "-cookie"],
    accept: (s) => !isPlaceholderOrCode(s),
  },
  {
    kind: "session_cookie",
    // Well-known session cookie names, wherever they appear.
    pattern:
      /(?<![\w.-])(?:PHPSESSID|JSESSIONID|connect\.sid|ASP\.NET_SessionId|laravel_session|sessionid|_[A-Za-z0-9]+_session|(?:__Secure-|__Host-)?(?:next-)?auth\.session-token)=(?<secret>[^\s;,'"&]{8,})/g,
    screen: ["sessid", "connect\\.sid", "sessionid", "_session=", "session-token"],
    accept: (s) => !isPlaceholderOrCode(s),
  },
  {
    kind: "password_flag",
    // --password value, --db-password=value, -storepass value, --token value, --client-secret value.
    pattern: new RegExp(
      String.raw`(?<![\w-])(?:--?(?:[a-z]{1,20}-)?(?:password|passwd|pass|pwd|token|secret|api-key|apikey|access-token|auth-token|client-secret|secret-key|access-key|private-key)|-(?:src|dest)?(?:store|key)pass)(?:[ \t]+|=)` +
        FLAG_VALUE,
      "gi",
    ),
    screen: ["-[a-z-]{0,30}(?:pass|pwd|token|secret|key)[a-z]{0,4}(?:[ \\t]|=)"],
    accept: flagValue,
  },
  {
    kind: "password_flag",
    // openssl -passin pass:VALUE / -passout pass:VALUE / -pass pass:VALUE.
    pattern: /(?<![\w-])-pass(?:in|out)?[ \t]+pass:(?<secret>[^\s"'`;|&]{1,300})/g,
    screen: ["-pass"],
    accept: flagValue,
  },
  {
    kind: "password_flag",
    // mysql -pVALUE (no space: with a space the next word is the database), docker login -p VALUE.
    pattern: new RegExp(
      String.raw`\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mysqlsh|mariadb(?:-dump|-admin)?)\b[^\r\n|;&]{0,300}?(?<=\s)-p(?:"(?<secret>[^"\r\n]{1,300})"|'(?<secret2>[^'\r\n]{1,300})'|(?<secret3>[^\s"'\x60;|&<>-][^\s"'\x60;|&<>]{0,300}))` +
        String.raw`|\bdocker[ \t]+login\b[^\r\n|;&]{0,300}?(?<=\s)-p[ \t]+(?:"(?<secret4>[^"\r\n]{1,300})"|'(?<secret5>[^'\r\n]{1,300})'|(?<secret6>[^\s"'\x60;|&<>]{1,300}))`,
      "g",
    ),
    screen: ["mysql[^\\r\\n]{0,320}?\\s-p", "mariadb[^\\r\\n]{0,320}?\\s-p", "docker[ \\t]+login[^\\r\\n]{0,300}?\\s-p"],
    accept: (s) => !s.startsWith("$") && !s.startsWith("`") && !isPlaceholderOrCode(s),
  },
  {
    kind: "password_flag",
    // curl -u user:pass, wget/httpie/xh --user / -a user:pass: the password part.
    pattern: new RegExp(
      String.raw`\b(?:curl|wget|xh|xhs|http|https|lftp)[ \t][^\r\n|;&]{0,300}?(?<=\s)(?:-u|--user|-a|--auth|--proxy-user|-U)(?:[ \t]+|=)?["']?[^\s:"'@]{0,100}:(?<secret>[^\s"'@]{1,200})`,
      "g",
    ),
    screen: ["curl", "wget", "xhs?", "https?", "lftp"].map((c) => `${c}[ \\t][^\\r\\n]{0,300}?-[-uaU]`),
    accept: (s) => !s.startsWith("$") && !isPlaceholderOrCode(s) && !isNameLike(s),
  },
];
