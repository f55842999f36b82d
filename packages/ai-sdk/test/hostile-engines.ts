import type { Message, ToolSchema } from "@context-engine/core";
import { ContextEngine } from "@context-engine/core";

/** What a hostile engine hands back from `compress` and `selectContext`. */
export type Hostile = "throwing-getter" | "proxy" | "javascript-url" | "file-url" | "cyclic-message";

const user = (text: string): Message => ({ role: "user", content: text });

function hostileList(kind: Hostile): unknown {
  switch (kind) {
    case "throwing-getter": {
      const message = { role: "user" };
      Object.defineProperty(message, "content", { enumerable: true, get: () => { throw new Error("getter trap"); } });
      return [message];
    }
    case "proxy":
      return new Proxy([user("hi")], {
        get: () => { throw new Error("proxy trap"); },
        ownKeys: () => { throw new Error("proxy trap"); },
      });
    case "javascript-url":
      return [{ role: "user", content: [{ type: "image_url", image_url: { url: "javascript:alert(1)" } }] }];
    case "file-url":
      return [{ role: "user", content: [{ type: "image_url", image_url: { url: "file:///etc/passwd" } }] }];
    case "cyclic-message": {
      const message: Record<string, unknown> = { role: "user", content: "loop" };
      message.self = message;
      return [message];
    }
  }
}

/** Compresses on every step and selects on every request, answering each time with a hostile value. */
export class HostileEngine extends ContextEngine {
  constructor(readonly kind: Hostile) {
    super();
  }
  get name() {
    return `hostile-${this.kind}`;
  }
  updateFromResponse(): void {}
  shouldCompress(): boolean {
    return true;
  }
  compress(): Message[] {
    return hostileList(this.kind) as Message[];
  }
  override selectContext(): Message[] {
    return hostileList(this.kind) as Message[];
  }
}

/** Offers one tool whose JSON schema refers to itself. */
export class CyclicSchemaEngine extends ContextEngine {
  get name() {
    return "cyclic-schema";
  }
  updateFromResponse(): void {}
  shouldCompress(): boolean {
    return false;
  }
  compress(messages: Message[]): Message[] {
    return messages;
  }
  override getToolSchemas(): ToolSchema[] {
    const parameters: Record<string, unknown> = { type: "object", properties: {} };
    (parameters.properties as Record<string, unknown>).again = parameters;
    return [
      { name: "loop_tool", description: "cyclic", parameters: parameters as ToolSchema["parameters"] },
      { name: "fine_tool", description: "fine", parameters: { type: "object", properties: {} } },
    ];
  }
  override handleToolCall(): string {
    return "{}";
  }
}

/** Every hook throws, like an engine whose store cannot open. */
export class StorelessEngine extends ContextEngine {
  turns = 0;
  get name() {
    return "storeless";
  }
  #broken(): never {
    throw new Error("cannot open the store: /nowhere/lcm.db is a directory");
  }
  override onSessionStart(): void {
    this.#broken();
  }
  updateFromResponse(): void {
    this.#broken();
  }
  shouldCompress(): boolean {
    return this.#broken();
  }
  compress(): Message[] {
    return this.#broken();
  }
  override selectContext(): Message[] {
    return this.#broken();
  }
  override onTurnComplete(): void {
    this.turns++;
    this.#broken();
  }
}
