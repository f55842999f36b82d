// The minimal compress an author writes into the scaffolded skeleton: keep the system
// prompt and the recent tail (from the latest user request on), drop the middle.
export const MINIMAL_COMPRESS = `  compress(messages: Message[], options: CompressOptions = {}): Message[] | Promise<Message[]> {
    const tokens = options.currentTokens ?? this.lastPromptTokens;
    if (!options.force && tokens < this.thresholdTokens) return messages;
    if (options.signal?.aborted) return messages;
    let head = 0;
    while (head < messages.length && messages[head]!.role === "system") head++;
    let start = messages.length - 1;
    while (start > head && messages[start]!.role !== "user") start--;
    if (start <= head) return messages;
    this.compressionCount++;
    return [...messages.slice(0, head), ...messages.slice(start)];
  }
}
`;

/** Replace the skeleton's TODO compress with MINIMAL_COMPRESS and drop the kit's TODO mark. */
export function fillSkeleton(source: string, test: string): { source: string; test: string } {
  const at = source.indexOf("  compress(messages: Message[]");
  if (at < 0) throw new Error("the skeleton has no compress method to fill");
  return {
    source: source.slice(0, at) + MINIMAL_COMPRESS,
    test: test.replace(/\n\s*\/\/ TODO: remove once compress compacts.*\n\s*todo: \[[^\]]*\],/, ""),
  };
}
