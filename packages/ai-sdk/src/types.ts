import type { ModelMessage } from "ai";

/**
 * Structural shapes of the AI SDK messages this adapter reads and writes
 * internally. One build serves `ai@6` and `ai@7`: both majors' `ModelMessage`
 * and provider-prompt messages fit them.
 */
export type SdkProviderOptions = Record<string, Record<string, unknown>>;

export interface SdkPart {
  type: string;
  providerOptions?: SdkProviderOptions;
  [key: string]: unknown;
}

export interface SdkMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string | SdkPart[];
  providerOptions?: SdkProviderOptions;
  [key: string]: unknown;
}

/**
 * What the public API accepts as an SDK message: any `ModelMessage` or
 * provider-prompt message of either major. No index signature (the SDK's part
 * interfaces have none, and callback parameters are checked contravariantly).
 */
export interface SdkMessageLike {
  readonly role: "system" | "user" | "assistant" | "tool";
  readonly content: unknown;
}

/** The SDK's own message type (a type-only import of the `ai` peer: ai@6 or ai@7, whichever the app has). */
export type { ModelMessage };

/** Which SDK message dialect a conversion writes when it must build a part anew. */
export type SdkDialect = "model-message" | "prompt-v3" | "prompt-v4";

/** Internal: the loose view of a message the public API accepted. */
export function asSdk(messages: readonly SdkMessageLike[]): SdkMessage[] {
  return messages as unknown as SdkMessage[];
}

/** Internal: messages this adapter built (or kept) handed out as the SDK's type. */
export function asModel(messages: SdkMessage[]): ModelMessage[] {
  return messages as unknown as ModelMessage[];
}
