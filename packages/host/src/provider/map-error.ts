import { ChatModelError } from "@context-engine/core";
import type { ChatModelErrorKind } from "@context-engine/core";
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { isAbortError, looksLikeContextLength } from "./errors.js";
import type { ChatModelErrorWithRetry } from "./errors.js";

function headerOf(headers: unknown, name: string): string | null {
  if (!headers) return null;
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name);
  const v = (headers as Record<string, unknown>)[name];
  return typeof v === "string" ? v : null;
}

/** Retry-After in ms from `retry-after-ms` or `retry-after` (seconds or an HTTP date). */
export function parseRetryAfter(headers: unknown, now = Date.now()): number | undefined {
  const ms = headerOf(headers, "retry-after-ms");
  if (ms !== null && ms.trim() !== "" && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const ra = headerOf(headers, "retry-after");
  if (ra === null || ra.trim() === "") return undefined;
  const secs = Number(ra);
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
  const date = Date.parse(ra);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

function bodyText(error: APIError): string {
  const parts = [error.message, error.code, error.type];
  const e = error.error as Record<string, unknown> | undefined;
  if (e && typeof e === "object") {
    for (const key of ["message", "code", "type"]) if (typeof e[key] === "string") parts.push(e[key] as string);
  }
  return parts.filter((p): p is string => typeof p === "string").join(" ");
}

/**
 * An error from the `openai` client as a ChatModelError:
 * 401/403 → auth; 429 → quota (insufficient_quota / billing) or rate_limit;
 * 529, or a 5xx whose body says "overloaded" / "capacity" →
 * overloaded; other 5xx → server_error; a context-length rejection (400/413 with the
 * provider's code or wording) → context_length; other 4xx → bad_request;
 * connection failures → network; client timeouts → timeout; aborts → aborted.
 */
export function mapProviderError(error: unknown, baseURL: string | undefined): ChatModelError {
  if (ChatModelError.is(error)) return error;
  const where = baseURL ? ` (${baseURL})` : "";
  if (error instanceof APIUserAbortError || isAbortError(error)) {
    return new ChatModelError("aborted", "the request was cancelled", { cause: error });
  }
  if (error instanceof APIConnectionTimeoutError) {
    return new ChatModelError("timeout", `the provider did not answer in time${where}`, { cause: error });
  }
  if (error instanceof APIConnectionError) {
    const cause = (error as { cause?: { message?: string } }).cause?.message;
    return new ChatModelError("network", `could not reach the provider${where}${cause ? `: ${cause}` : ""}`, { cause: error });
  }
  if (error instanceof APIError) {
    const status = error.status;
    const text = bodyText(error);
    let kind: ChatModelErrorKind;
    let message: string;
    if (status === 401 || status === 403) {
      kind = "auth";
      message = `the provider rejected the API key (HTTP ${status})${where}: ${error.message}. Check OPENAI_API_KEY or model.api_key.`;
    } else if (status === 429) {
      const quota = /insufficient_quota|quota|billing|credit/i.test(text);
      kind = quota ? "quota" : "rate_limit";
      message = quota ? `the account is out of quota (HTTP 429)${where}: ${error.message}` : `rate limited (HTTP 429)${where}: ${error.message}`;
    } else if (status === 413 || (status !== undefined && status >= 400 && status < 500 && (error.code === "context_length_exceeded" || looksLikeContextLength(text)))) {
      kind = "context_length";
      message = `the request is longer than the model's context window (HTTP ${status})${where}: ${error.message}`;
    } else if (status === 408) {
      kind = "timeout";
      message = `the provider timed out (HTTP 408)${where}`;
    } else if (status !== undefined && status >= 500 && (status === 529 || /overloaded|over capacity|capacity/i.test(text))) {
      kind = "overloaded";
      message = `the provider is overloaded (HTTP ${status})${where}: ${error.message}`;
    } else if (status !== undefined && status >= 500) {
      kind = "server_error";
      message = `the provider failed (HTTP ${status})${where}: ${error.message}`;
    } else if (status !== undefined && status >= 400) {
      kind = "bad_request";
      message = `the provider rejected the request (HTTP ${status})${where}: ${error.message}`;
    } else {
      kind = "unknown";
      message = error.message;
    }
    const mapped = new ChatModelError(kind, message, { status, cause: error }) as ChatModelErrorWithRetry;
    const retryAfter = parseRetryAfter(error.headers);
    if (retryAfter !== undefined) mapped.retryAfterMs = retryAfter;
    return mapped;
  }
  if (error instanceof SyntaxError) {
    return new ChatModelError("unknown", `the server${where} sent a reply that is not valid JSON (${error.message}); is the base URL an OpenAI-compatible API?`, { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ChatModelError("unknown", message, { cause: error });
}
