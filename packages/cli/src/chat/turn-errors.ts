import type { TurnResult } from "@context-engine/host";
import { EXIT, type ExitCode } from "../errors.js";
import { formatInt } from "../format/numbers.js";

export interface FailureText {
  /** One sentence: what happened. */
  title: string;
  /** What to do about it (and what the server said, when it said something useful). */
  hints: string[];
  exitCode: ExitCode;
}

interface Endpoint {
  baseURL: string | undefined;
  requestTimeoutMs: number;
}

/** The provider's own words: the JSON body's `error.message`, else the client's message, one line, short. */
function serverSaid(error: unknown): string | null {
  const cause = (error as { cause?: { error?: { message?: unknown }; message?: unknown } } | null)?.cause;
  const body = cause?.error?.message;
  const text = typeof body === "string" && body ? body : typeof cause?.message === "string" ? cause.message : null;
  if (!text) return null;
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 160 ? `${line.slice(0, 159)}…` : line;
}

/**
 * A failed turn in plain words, printed once: one line saying what went
 * wrong, then what to do. HTTP 500 is a server error, not "overloaded".
 */
export function describeTurnFailure(result: TurnResult, endpoint: Endpoint): FailureText {
  const error = result.error as (Error & { kind?: string; status?: number; code?: string; estimatedTokens?: number; contextLength?: number }) | null;
  const where = endpoint.baseURL ?? "the endpoint";
  const status = error?.status ? ` (HTTP ${error.status})` : "";
  const said = serverSaid(error);
  const saidHint = said ? [`The server said: ${said}`] : [];
  const retried = result.apiCalls > 1 ? ", also after retrying" : "";
  const provider = (title: string, ...hints: string[]): FailureText => ({ title, hints: [...hints, ...saidHint], exitCode: EXIT.endpoint });
  if (result.exitReason === "context_budget_exceeded") {
    const est = error?.estimatedTokens;
    const ctx = error?.contextLength;
    return {
      title: `The next request${est ? ` (~${formatInt(est)} tokens)` : ""} would not fit the model's window${ctx ? ` of ${formatInt(ctx)}` : ""}, even after compacting.`,
      hints: ["Try /compress, or /new to start over, or set model.context_length in config.yaml if the window is larger."],
      exitCode: EXIT.internal,
    };
  }
  if (result.exitReason === "iteration_limit") {
    return { title: error?.message ? `${capitalise(error.message)}.` : "The turn made too many model requests.", hints: ["Ask again with a narrower question."], exitCode: EXIT.internal };
  }
  switch (error?.kind) {
    case "auth":
      return provider(`The server rejected the API key${status}.`, `Check OPENAI_API_KEY or model.api_key in config.yaml for ${where}.`);
    case "quota":
      return provider(`The account is out of quota${status}.`, "Add credit to the account or use another API key.");
    case "rate_limit":
      return provider(`The server is rate-limiting the requests${status}${retried}.`, "Wait a minute and send the message again.");
    case "overloaded":
      return provider(`The server says it is overloaded${status}.`, "Wait a little and send the message again.");
    case "server_error":
      return provider(`The server had an internal error${status}${retried}.`, "Send the message again; if it keeps failing, look at the server's own log.");
    case "network":
      return provider(`Could not reach ${where}.`, "Is the server running, and is model.base_url (or OPENAI_BASE_URL) right?");
    case "timeout":
      return provider(
        `The server did not answer within ${Math.round(endpoint.requestTimeoutMs / 1000)} s.`,
        "Raise model.request_timeout_seconds in config.yaml for slow models, or send the message again.",
      );
    case "context_length":
      return provider(`The server says the conversation no longer fits the model's window${status}.`, "Try /compress or /new, or set model.context_length in config.yaml to the real window.");
    case "bad_request":
      return provider(`The server refused the request${status}.`, "Check model.name; the server's message below says why.");
    case "refusal":
    case "empty":
    case "truncated":
      return provider(`${capitalise(error.message)}.`, "Rephrase the message and send it again.");
    default:
      return { title: `${capitalise(error?.message ?? "the turn failed")}${/[.?!]$/.test(error?.message ?? "") ? "" : "."}`, hints: saidHint, exitCode: result.exitReason.startsWith("provider_error") ? EXIT.endpoint : EXIT.internal };
  }
}

function capitalise(text: string): string {
  return text ? text[0]!.toUpperCase() + text.slice(1) : text;
}
