/**
 * Structural shapes of the AI SDK messages this adapter reads and writes.
 * Declared here (not imported from `ai`) so one build serves `ai@6` and `ai@7`:
 * both majors' `ModelMessage` and provider-prompt messages fit them.
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

/** Which SDK message dialect a conversion writes when it must build a part anew. */
export type SdkDialect = "model-message" | "prompt-v3" | "prompt-v4";
