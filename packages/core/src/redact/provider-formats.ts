/**
 * Credential formats as the providers document them, written as data: a
 * token is a sequence of segments (a fixed prefix, then runs of a character
 * class), so the same description builds the detector and, in the tests, the
 * generator of valid tokens and of look-alikes. Covered: messaging platforms
 * (Slack, Discord, Telegram, Teams, Meta, Twitter, Sendinblue, Mailchimp),
 * payments (Stripe webhooks, Square, Braintree, Flutterwave, Razorpay, Shippo,
 * EasyPost, Duffel, Paddle, GoCardless, Plaid), cloud and hosting (Azure AD,
 * Google OAuth, Alibaba, Tencent, Heroku, Scaleway, Fly.io, Netlify, Vercel,
 * Supabase, Render, Doppler, Pulumi, Terraform Cloud, Tailscale, Cloudflare,
 * Age, 1Password, Atlassian, Sentry, New Relic, Grafana, Dynatrace), package
 * registries (RubyGems, NuGet, crates.io, Docker Hub, JFrog, Clojars), CI
 * (GitLab, CircleCI, Buildkite, SonarQube, Octopus, Harness, Bitbucket) and
 * SaaS / AI APIs (Notion, Figma, Airtable, Dropbox, Contentful, Typeform,
 * Prefect, PlanetScale, ReadMe, PostHog, Resend, Mapbox, HubSpot, LaunchDarkly,
 * Perplexity, xAI, LangSmith, Pinecone, ElevenLabs).
 */

/** A fixed text (one of several spellings), or a run of characters from a class. */
export type TokenSegment = string | readonly string[] | { chars: string; min: number; max?: number };

export interface TokenFormat {
  kind: ProviderSecretKind;
  provider: string;
  segments: readonly TokenSegment[];
  /** Index of the segment that must read as random (default: the longest class run). */
  randomPart?: number;
  /** Extra structural check on the whole match. */
  check?: (token: string) => boolean;
  /** Screen fragments when the token does not start with a fixed prefix. */
  screen?: readonly string[];
  /** Other text allowed right before the token (e.g. `/bot` in a Telegram API URL). */
  after?: string;
}

export type ProviderSecretKind =
  | "slack_token"
  | "discord_token"
  | "telegram_bot_token"
  | "webhook_url"
  | "stripe_key"
  | "payment_token"
  | "cloud_token"
  | "registry_token"
  | "ci_token"
  | "saas_token";

export const HEX = "0-9a-f";
export const HEX_UPPER = "0-9A-F";
export const ALNUM = "A-Za-z0-9";
export const LOWER_ALNUM = "a-z0-9";
export const UPPER_ALNUM = "A-Z0-9";
export const B64URL = "A-Za-z0-9_\\-";
export const B64 = "A-Za-z0-9+/";
export const DIGITS = "0-9";

const run = (chars: string, min: number, max?: number): TokenSegment => (max === undefined ? { chars, min } : { chars, min, max });
const exactly = (chars: string, n: number): TokenSegment => ({ chars, min: n, max: n });

/** A Discord bot token's first part is the bot's numeric id in base64. */
function discordIdPart(token: string): boolean {
  const first = token.split(".")[0] ?? "";
  try {
    return /^\d{15,22}$/.test(atob(first.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (first.length % 4)) % 4)));
  } catch {
    return false;
  }
}

export const TOKEN_FORMATS: readonly TokenFormat[] = [
  // Messaging platforms.
  { kind: "slack_token", provider: "Slack bot/user/refresh/config tokens", segments: [["xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-", "xoxo-", "xoxe-", "xoxe.xoxp-", "xoxe.xoxb-"], run("0-9", 1, 15), "-", run(`${ALNUM}-`, 10, 200)] },
  { kind: "slack_token", provider: "Slack app-level token", segments: ["xapp-", run(DIGITS, 1, 2), "-", run(UPPER_ALNUM, 8, 14), "-", run(DIGITS, 8, 16), "-", run(ALNUM, 32, 80)] },
  { kind: "webhook_url", provider: "Slack webhook", segments: ["https://hooks.slack.com/", ["services/", "workflows/", "triggers/"], run(UPPER_ALNUM, 8, 12), "/", run(ALNUM, 8, 14), "/", run(ALNUM, 20, 48)] },
  { kind: "discord_token", provider: "Discord bot token", segments: [["M", "N", "O"], run(B64URL, 20, 30), ".", run(B64URL, 5, 7), ".", run(B64URL, 25, 45)], check: discordIdPart, screen: ["[MNO][A-Za-z0-9_-]{20,30}\\.[A-Za-z0-9_-]{5,7}\\."] },
  { kind: "webhook_url", provider: "Discord webhook", segments: ["https://", ["", "ptb.", "canary."], ["discord.com", "discordapp.com"], "/api/webhooks/", run(DIGITS, 17, 20), "/", run(B64URL, 60, 68)], screen: ["discord(?:app)?\\.com/api/webhooks/"] },
  { kind: "telegram_bot_token", provider: "Telegram bot token", segments: [run(DIGITS, 8, 10), ":", run(B64URL, 30, 50)], screen: [":[A-Za-z0-9_-]{30}"], after: "/bot" },
  { kind: "webhook_url", provider: "Microsoft Teams webhook", segments: ["https://", run("a-z0-9-", 1, 40), ".webhook.office.com/webhookb2/", run(`${ALNUM}@/-`, 60, 300)], randomPart: 3, screen: ["webhook\\.office\\.com/webhookb2/"] },
  { kind: "saas_token", provider: "Meta (Facebook, WhatsApp) access token", segments: ["EAA", run(ALNUM, 90, 400)] },
  { kind: "saas_token", provider: "Twitter bearer token", segments: ["AAAAAAAAAAAAAAAAAAAAA", run(`${ALNUM}%`, 30, 150)] },
  { kind: "saas_token", provider: "Brevo (Sendinblue)", segments: ["xkeysib-", exactly(HEX, 64), "-", exactly(ALNUM, 16)] },
  { kind: "saas_token", provider: "Mailchimp", segments: [exactly(HEX, 32), "-us", run(DIGITS, 1, 2)], screen: ["-us[0-9]"], randomPart: 0 },

  // Payments.
  { kind: "stripe_key", provider: "Stripe webhook signing secret", segments: ["whsec_", run(`${ALNUM}+/=`, 24, 80)] },
  { kind: "stripe_key", provider: "Stripe secret/restricted key", segments: [["sk_live_", "sk_test_", "rk_live_", "rk_test_"], run(ALNUM, 16, 250)] },
  { kind: "payment_token", provider: "Square", segments: [["sq0atp-", "sq0csp-", "sq0idp-"], run(B64URL, 22, 60)] },
  { kind: "payment_token", provider: "Square access token", segments: ["EAAA", run(B64URL, 60, 80)] },
  { kind: "payment_token", provider: "Braintree/PayPal", segments: ["access_token$", ["production$", "sandbox$"], exactly(LOWER_ALNUM, 16), "$", exactly(HEX, 32)] },
  { kind: "payment_token", provider: "Flutterwave", segments: [["FLWSECK-", "FLWSECK_TEST-"], exactly(HEX, 32), "-X"] },
  { kind: "payment_token", provider: "Razorpay", segments: [["rzp_live_", "rzp_test_"], run(ALNUM, 14, 40)] },
  { kind: "payment_token", provider: "Shippo", segments: [["shippo_live_", "shippo_test_"], exactly(HEX, 40)] },
  { kind: "payment_token", provider: "EasyPost", segments: [["EZAK", "EZTK"], exactly(HEX, 54)] },
  { kind: "payment_token", provider: "Duffel", segments: [["duffel_live_", "duffel_test_"], run(B64URL, 40, 50)] },
  { kind: "payment_token", provider: "Paddle", segments: [["pdl_live_apikey_", "pdl_sdbx_apikey_"], run(`${ALNUM}_`, 20, 80)] },
  { kind: "payment_token", provider: "GoCardless", segments: [["live_", "sandbox_"], run(B64URL, 40, 44)] },
  { kind: "payment_token", provider: "Plaid", segments: [["access-sandbox-", "access-development-", "access-production-"], exactly(HEX, 8), "-", exactly(HEX, 4), "-", exactly(HEX, 4), "-", exactly(HEX, 4), "-", exactly(HEX, 12)], randomPart: 9 },

  // Cloud, hosting, infrastructure.
  { kind: "cloud_token", provider: "Azure AD client secret", segments: [exactly(`${ALNUM}_~.`, 3), exactly(DIGITS, 1), "Q~", run(`${ALNUM}_~.-`, 31, 34)], screen: ["q~"] },
  { kind: "cloud_token", provider: "Google OAuth client secret", segments: ["GOCSPX-", run(B64URL, 24, 32)] },
  { kind: "cloud_token", provider: "Google OAuth refresh token", segments: ["1//0", run(B64URL, 40, 300)] },
  { kind: "cloud_token", provider: "Alibaba Cloud access key id", segments: ["LTAI", run(ALNUM, 12, 24)] },
  { kind: "cloud_token", provider: "Tencent Cloud secret id", segments: ["AKID", run(ALNUM, 13, 40)] },
  { kind: "cloud_token", provider: "Heroku", segments: ["HRKU-", run(B64URL, 40, 70)] },
  { kind: "cloud_token", provider: "Scaleway", segments: ["SCW", exactly(UPPER_ALNUM, 17)] },
  { kind: "cloud_token", provider: "Fly.io", segments: [["fo1_", "fm1_", "fm2_", "fm1a_", "fm1r_"], run(`${B64URL}+/=`, 40, 800)] },
  { kind: "cloud_token", provider: "Netlify", segments: [["nfp_", "nfc_", "nfo_", "nfu_", "nfb_"], run(B64URL, 36, 60)] },
  { kind: "cloud_token", provider: "Vercel", segments: [["vcp_", "vci_", "vca_", "vcr_", "vck_"], run(ALNUM, 24, 64)] },
  { kind: "cloud_token", provider: "Supabase", segments: [["sbp_", "sbp_oauth_"], exactly(HEX, 40)] },
  { kind: "cloud_token", provider: "Supabase secret key", segments: ["sb_secret_", run(B64URL, 20, 60)] },
  { kind: "cloud_token", provider: "Render", segments: ["rnd_", run(ALNUM, 24, 48)] },
  { kind: "cloud_token", provider: "Doppler", segments: [["dp.pt.", "dp.st.", "dp.sa.", "dp.ct.", "dp.scim.", "dp.audit."], run(`${ALNUM}_.`, 40, 64)] },
  { kind: "cloud_token", provider: "Pulumi", segments: ["pul-", exactly(HEX, 40)] },
  { kind: "cloud_token", provider: "Terraform Cloud / HCP", segments: [exactly(ALNUM, 14), ".atlasv1.", run(`${B64URL}=`, 60, 90)], screen: ["atlasv1\\."], randomPart: 2 },
  { kind: "cloud_token", provider: "Tailscale", segments: ["tskey-", ["api-", "auth-", "client-", "scim-", "webhook-"], run(ALNUM, 6, 20), "-", run(ALNUM, 20, 60)] },
  { kind: "cloud_token", provider: "Cloudflare Origin CA key", segments: ["v1.0-", exactly(HEX, 24), "-", exactly(HEX, 146)] },
  { kind: "cloud_token", provider: "age secret key", segments: ["AGE-SECRET-KEY-1", exactly("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)] },
  { kind: "cloud_token", provider: "1Password service account", segments: ["ops_eyJ", run(`${B64URL}+/=`, 100, 1200)] },
  { kind: "cloud_token", provider: "Atlassian / Bitbucket API token", segments: [["ATATT3", "ATCTT3", "ATBB"], run(`${B64URL}=`, 28, 300)] },
  { kind: "cloud_token", provider: "Sentry", segments: [["sntrys_", "sntryu_"], run(`${B64}=_-`, 40, 300)] },
  { kind: "cloud_token", provider: "New Relic", segments: [["NRAK-", "NRII-", "NRJS-", "NRRA-", "NRAA-"], run(ALNUM, 20, 42)] },
  { kind: "cloud_token", provider: "Grafana Cloud", segments: ["glc_", run(`${B64}=`, 32, 400)] },
  { kind: "cloud_token", provider: "Dynatrace", segments: ["dt0c01.", exactly(UPPER_ALNUM, 24), ".", exactly(UPPER_ALNUM, 64)] },

  // Package registries.
  { kind: "registry_token", provider: "RubyGems", segments: ["rubygems_", exactly(HEX, 48)] },
  { kind: "registry_token", provider: "NuGet", segments: ["oy2", exactly(LOWER_ALNUM, 43)] },
  { kind: "registry_token", provider: "crates.io", segments: ["cio", exactly(ALNUM, 32)] },
  { kind: "registry_token", provider: "Docker Hub", segments: [["dckr_pat_", "dckr_oat_"], run(B64URL, 27, 40)] },
  { kind: "registry_token", provider: "JFrog Artifactory API key", segments: ["AKCp", run(ALNUM, 69, 80)] },
  { kind: "registry_token", provider: "JFrog reference token", segments: ["cmVmdGtu", run(`${ALNUM}`, 50, 70)] },
  { kind: "registry_token", provider: "Clojars", segments: ["CLOJARS_", exactly(LOWER_ALNUM, 60)] },

  // CI and code hosting.
  { kind: "ci_token", provider: "GitLab", segments: [["gldt-", "glrt-", "glptt-", "glcbt-", "glimt-", "glft-", "gloas-", "glsoat-", "glagent-", "glffct-", "glwt-", "glrtr-"], run(B64URL, 20, 80)] },
  { kind: "ci_token", provider: "GitLab runner registration", segments: ["GR1348941", run(B64URL, 20, 30)] },
  { kind: "ci_token", provider: "CircleCI", segments: [["CCIPAT_", "CCIPRJ_"], run(ALNUM, 20, 24), "_", exactly(HEX, 40)] },
  { kind: "ci_token", provider: "Buildkite", segments: [["bkua_", "bkat_"], exactly(HEX, 40)] },
  { kind: "ci_token", provider: "SonarQube / SonarCloud", segments: [["sqp_", "squ_", "sqa_"], exactly(HEX, 40)] },
  { kind: "ci_token", provider: "Octopus Deploy", segments: ["API-", run(UPPER_ALNUM, 26, 32)] },
  { kind: "ci_token", provider: "Harness", segments: [["pat.", "sat."], exactly(B64URL, 22), ".", exactly(HEX, 24), ".", exactly(ALNUM, 20)] },

  // SaaS and AI APIs.
  { kind: "saas_token", provider: "Notion", segments: [["secret_", "ntn_"], run(ALNUM, 43, 50)] },
  { kind: "saas_token", provider: "Figma", segments: ["figd_", run(B64URL, 40, 44)] },
  { kind: "saas_token", provider: "Airtable", segments: ["pat", exactly(ALNUM, 14), ".", exactly(HEX, 64)], screen: ["pat[A-Za-z0-9]{14}\\.[0-9a-f]{8}"] },
  { kind: "saas_token", provider: "Dropbox", segments: ["sl.", run(B64URL, 130, 1400)] },
  { kind: "saas_token", provider: "Contentful", segments: ["CFPAT-", run(B64URL, 43, 45)] },
  { kind: "saas_token", provider: "Typeform", segments: ["tfp_", run(`${B64URL}=.`, 44, 64)] },
  { kind: "saas_token", provider: "Prefect", segments: [["pnu_", "pnb_"], exactly(ALNUM, 36)] },
  { kind: "saas_token", provider: "PlanetScale", segments: [["pscale_tkn_", "pscale_pw_", "pscale_oauth_"], run(`${B64URL}.`, 32, 64)] },
  { kind: "saas_token", provider: "ReadMe", segments: ["rdme_", exactly(LOWER_ALNUM, 70)] },
  { kind: "saas_token", provider: "PostHog personal key", segments: ["phx_", run(ALNUM, 40, 50)] },
  { kind: "saas_token", provider: "Resend", segments: ["re_", run(ALNUM, 8, 10), "_", run(ALNUM, 20, 28)] },
  { kind: "saas_token", provider: "Mapbox secret token", segments: ["sk.eyJ", run(B64URL, 50, 200), ".", run(B64URL, 20, 30)] },
  { kind: "saas_token", provider: "HubSpot private app", segments: [["pat-na1-", "pat-eu1-", "pat-na2-"], exactly(HEX, 8), "-", exactly(HEX, 4), "-", exactly(HEX, 4), "-", exactly(HEX, 4), "-", exactly(HEX, 12)], randomPart: 9 },
  { kind: "saas_token", provider: "LaunchDarkly", segments: [["api-", "sdk-", "mob-"], exactly(HEX, 8), "-", exactly(HEX, 4), "-", exactly(HEX, 4), "-", exactly(HEX, 4), "-", exactly(HEX, 12)], randomPart: 9 },
  { kind: "saas_token", provider: "Perplexity", segments: ["pplx-", run(ALNUM, 40, 56)] },
  { kind: "saas_token", provider: "xAI", segments: ["xai-", run(ALNUM, 60, 90)] },
  { kind: "saas_token", provider: "LangSmith", segments: [["lsv2_pt_", "lsv2_sk_"], exactly(HEX, 32), "_", exactly(HEX, 10)] },
  { kind: "saas_token", provider: "Pinecone", segments: ["pcsk_", run(`${ALNUM}_`, 50, 90)] },
  { kind: "saas_token", provider: "ElevenLabs", segments: ["sk_", exactly(HEX, 48)] },
  { kind: "saas_token", provider: "Hugging Face org token", segments: ["api_org_", run(ALNUM, 30, 40)] },
];
