import { createInterface } from "node:readline";
import type { ChatModel, ContextEngine } from "@context-engine/core";
import { parseCommandArgs, positiveInt } from "../args.js";
import { ConfigError, EndpointError, EXIT, UsageError } from "../errors.js";
import { createPalette } from "../format/color.js";
import { CHAT_HELP } from "../help.js";
import { useColor, type CliIO } from "../io.js";
import { createCliLogger } from "../logger.js";
import { engineSearchPaths } from "../paths.js";
import { describeChatEvent } from "./chat-events.js";
import { ENDPOINT_HINTS } from "./endpoint.js";


export async function chatCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs("chat", argv, {
    engine: { type: "string", short: "e" },
    model: { type: "string", short: "m" },
    "context-length": { type: "string", short: "n" },
    system: { type: "string" },
  });
  if (values.help) {
    io.stdout.write(CHAT_HELP);
    return EXIT.ok;
  }
  if (positionals.length > 0) {
    throw new UsageError(`chat: unexpected argument ${JSON.stringify(positionals[0])}`, { hints: ["Type messages after it starts, or pipe them on stdin."] });
  }
  const contextLengthFlag = positiveInt("context-length", values["context-length"]);
  const err = createPalette(useColor(io.stderr, io.env) && !values["no-color"]);
  const out = createPalette(useColor(io.stdout, io.env) && !values["no-color"]);
  const say = (line: string) => io.stderr.write(`${line}\n`);
  const logger = createCliLogger((line) => say(err.dim(line)), values.verbose ? "info" : "warn");

  const [{ loadConfig, loadEngine }, host] = await Promise.all([import("@context-engine/plugin-loader"), import("@context-engine/host")]);
  const env = { ...io.env };
  const loaded = await loadConfig({ cwd: io.cwd, env, ...(values.config ? { path: values.config } : {}) });
  const modelSection = { ...loaded.config.model, ...(values.model ? { name: values.model } : {}) };

  // The endpoint: model name plus a base URL or a key (a key alone means api.openai.com).
  let resolved;
  try {
    resolved = host.resolveModelConfig(modelSection, env, loaded.file ?? "config.yaml");
  } catch (error) {
    throw new EndpointError(`no model endpoint configured: ${(error as Error).message.split("\n")[0]}`, { hints: ENDPOINT_HINTS });
  }
  if (!resolved.baseURL && !resolved.apiKey) {
    throw new EndpointError("no model endpoint configured: neither a base URL nor an API key is set", { hints: ENDPOINT_HINTS });
  }
  const contextLength = contextLengthFlag ?? resolved.contextLength;
  const chatModel: ChatModel = host.createOpenAIChatModel({
    model: resolved.model,
    // Local OpenAI-compatible servers ignore the key, but the client needs one.
    apiKey: resolved.apiKey ?? "not-needed",
    ...(resolved.baseURL ? { baseURL: resolved.baseURL } : {}),
  });

  let engine: ContextEngine;
  let engineInfo: { name: string; source: string; version: string | null; fallbackReason: string | null; dataDir: string | undefined };
  try {
    const l = await loadEngine(loaded, { contextLength, model: resolved.model, chatModel, logger }, { cwd: io.cwd, env, logger, nodeModules: engineSearchPaths(io.cwd), ...(values.engine ? { engine: values.engine } : {}) });
    engine = l.engine;
    engineInfo = { name: l.name, source: l.source, version: l.version, fallbackReason: l.fallbackReason, dataDir: l.initContext.dataDir };
    for (const w of l.warnings) logger.warn(w);
  } catch (error) {
    // The same unknown engine is a usage error from --engine but a config error from config.yaml.
    if (!values.engine && error instanceof Error && error.name === "EngineLoadError") {
      throw new ConfigError(`${error.message} (context.engine in ${loaded.file ?? "config.yaml"})`, { hints: ["Run 'context-engine plugins list' to see the engines found."] });
    }
    throw error;
  }

  const agent = new host.AgentHost({
    engine,
    chatModel,
    config: host.hostConfigFromFile(loaded.config, loaded.file ?? "config.yaml"),
    logger,
    onEvent: (event) => {
      const line = describeChatEvent(event, err);
      if (line) say(line);
    },
  });
  const session = await agent.openSession({
    model: resolved.model,
    contextLength,
    ...(resolved.provider ? { provider: resolved.provider } : {}),
    ...(resolved.baseURL ? { baseUrl: resolved.baseURL } : {}),
    ...(values.system ? { systemPrompt: values.system } : {}),
    ...(engineInfo.dataDir ? { dataDir: engineInfo.dataDir } : {}),
    platform: "cli",
  });

  const interactive = (io.stdin as { isTTY?: boolean }).isTTY === true;
  say(
    err.dim(
      `context-engine chat · model ${resolved.model} (${contextLength.toLocaleString("en-US")} tokens) · engine ${engineInfo.name}` +
        `${engineInfo.version ? ` ${engineInfo.version}` : ""} (${engineInfo.source}) · /help for commands, /exit to leave`,
    ),
  );
  if (engineInfo.fallbackReason) say(err.yellow(`⚠ ${engineInfo.fallbackReason}; using the built-in compressor`));

  const rl = createInterface({ input: io.stdin, output: interactive ? (io.stderr as NodeJS.WritableStream) : undefined, terminal: interactive });
  const prompt = () => {
    if (interactive) {
      rl.setPrompt(out.bold("you› "));
      rl.prompt();
    }
  };
  let current: AbortController | null = null;
  let exitCode: number = EXIT.ok;
  let interrupted = false;
  rl.on("SIGINT", () => {
    if (current) {
      current.abort();
      say(err.yellow("⚠ interrupted"));
    } else {
      interrupted = true;
      rl.close();
    }
  });

  try {
    prompt();
    for await (const raw of rl) {
      const line = raw.trim();
      if (!line) {
        prompt();
        continue;
      }
      if (line === "/exit" || line === "/quit") break;
      const command = host.parseSlashCommand(line);
      if (command) {
        const outcome = await host.runSlashCommand(session, command, { resolveContextLength: (m) => host.defaultContextLength(m) });
        let text = outcome.output;
        if (command.name === "engine") text = engineReport(session.status(), engineInfo);
        if (command.name === "help") text += `\n${"/exit, /quit".padEnd(32)} leave`;
        io.stdout.write(`${text}\n`);
        prompt();
        continue;
      }
      current = new AbortController();
      const result = await session.send(host.unescapeUserLine(line), { signal: current.signal });
      current = null;
      if (result.status === "completed") {
        io.stdout.write(`${result.text || out.dim("(no text)")}\n`);
        exitCode = EXIT.ok;
      } else if (result.status === "interrupted") {
        say(err.yellow("⚠ the turn was interrupted"));
      } else {
        const kind = (result.error as { kind?: string } | null)?.kind;
        say(err.red(`✖ ${result.exitReason}: ${result.error?.message ?? "the turn failed"}`));
        if (kind === "auth") say(err.dim(`  Check OPENAI_API_KEY / model.api_key for ${resolved.baseURL ?? "the endpoint"}.`));
        if (kind === "network") say(err.dim(`  Is ${resolved.baseURL ?? "the endpoint"} reachable?`));
        exitCode = result.exitReason.startsWith("provider_error") ? EXIT.endpoint : EXIT.internal;
      }
      prompt();
    }
  } finally {
    rl.close();
    await agent.close();
    const close = (engine as { close?: unknown }).close;
    if (typeof close === "function") await Promise.resolve(close.call(engine)).catch(() => undefined);
  }
  return interrupted ? EXIT.interrupted : exitCode;
}

function engineReport(
  status: { engine: string; engineTools: string[]; engineStatus: Record<string, unknown> | null },
  info: { source: string; version: string | null },
): string {
  const lines = [`Context engine: ${status.engine}${info.version ? ` ${info.version}` : ""} (${info.source}); tools: ${status.engineTools.join(", ") || "none"}`];
  const s = status.engineStatus;
  if (s) {
    for (const [key, value] of Object.entries(s)) {
      if (key === "name") continue;
      const shown = typeof value === "number" ? (Number.isInteger(value) ? value.toLocaleString("en-US") : value.toFixed(1)) : JSON.stringify(value);
      lines.push(`  ${key}: ${shown}`);
    }
  }
  return lines.join("\n");
}
