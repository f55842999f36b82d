import type { Message } from "@context-engine/core";
/**
 * Seeded generator of ONE long agent conversation: user requests, assistant
 * prose, tool calls with JSON arguments, tool results (code, logs, listings).
 * About a third of the messages carry some CJK text (one line in twenty).
 * Search targets are planted at fixed message positions, so every grep can be
 * checked against the message it must find.
 */
export declare function rng(seed: number): () => number;
/** What the grep checks look for, and where it is planted. */
export declare const PLANTED: {
    /** Ordinary English words that the generator never produces otherwise. */
    readonly words: {
        readonly query: "marmalade lighthouse";
        readonly text: "We agreed the marmalade lighthouse release name stays.";
        readonly at: 4;
    };
    /** One rare identifier. */
    readonly rare: {
        readonly query: "Vortigernix";
        readonly text: "The flaky job is Vortigernix on the arm runner.";
        readonly at: 6;
    };
    /** A CJK phrase (the trigram index path). */
    readonly cjk: {
        readonly query: "紫色长颈鹿";
        readonly text: "备注：紫色长颈鹿是这次发布的代号。";
        readonly at: 8;
    };
    /** A bare literal (letters on both sides, so no whole word to narrow by) only in the oldest prose message. */
    readonly oldest: {
        readonly query: "Q7Kx9PLUMBwq";
        readonly text: "The cache key was aQ7Kx9PLUMBwqz before the rename.";
        readonly at: 0;
    };
    /** A bare literal (no word boundaries) repeated through history; the oldest copy is the one to find. */
    readonly literal: {
        readonly query: "E_PLANT_4417";
        readonly at: 10;
        readonly every: 2000;
    };
};
export declare function literalText(copy: number): string;
export declare class ConversationGenerator {
    #private;
    /** Messages emitted so far. */
    emitted: number;
    /** UTF-8 bytes of the text emitted so far (content, tool names and arguments). */
    rawBytes: number;
    /** Message indexes of the planted messages (literal: every copy). */
    readonly plantedAt: {
        oldest: number;
        words: number;
        rare: number;
        cjk: number;
        literal: number[];
    };
    constructor(seed?: number);
    /** One turn: a user message, then 0–3 tool rounds, then an assistant answer. */
    turn(): Message[];
    /** Count messages that joined the conversation from elsewhere (host turns), so sizes and raw bytes stay true. */
    count(messages: readonly Message[]): void;
    /** Whole turns until at least `n` messages were emitted in total. */
    until(n: number): Message[];
}
/** UTF-8 bytes of the text a message carries (content, tool names and arguments). */
export declare function rawTextBytes(m: Message): number;
//# sourceMappingURL=generate.d.ts.map