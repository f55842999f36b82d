import { className } from "./names.js";
import { CORE_RANGE, KIT_RANGE, TYPES_NODE_VERSION, TYPESCRIPT_VERSION, VITEST_VERSION } from "./versions.js";

export interface TemplateInput {
  name: string;
  description: string;
  coreRange?: string;
  kitRange?: string;
  /** npm specs of local copies (`file:…` folder or tarball) used instead of the registry, before the packages are published. */
  coreSource?: string;
  kitSource?: string;
}

/** Every file of a new engine package, by relative path. */
export function engineFiles(input: TemplateInput): Record<string, string> {
  const { name, description } = input;
  const cls = className(name);
  const pkg = {
    name,
    version: "0.1.0",
    description,
    license: "MIT",
    type: "module",
    sideEffects: false,
    exports: { ".": { types: "./dist/index.d.ts", import: "./dist/index.js", default: "./dist/index.js" }, "./package.json": "./package.json" },
    main: "./dist/index.js",
    types: "./dist/index.d.ts",
    files: ["dist", "plugin.yaml", "README.md"],
    // How the plugin loader finds this engine among installed npm packages.
    contextEngine: { name, entry: "./dist/index.js" },
    keywords: ["context-engine"],
    engines: { node: ">=20.19" },
    scripts: { build: "tsc -p tsconfig.build.json", test: "vitest run", prepack: "npm run build" },
    // The host brings its own copy of core: one ContextEngine class for everybody.
    peerDependencies: { "@context-engine/core": input.coreRange ?? CORE_RANGE },
    devDependencies: {
      "@context-engine/contract-tests": input.kitSource ?? input.kitRange ?? KIT_RANGE,
      "@context-engine/core": input.coreSource ?? input.coreRange ?? CORE_RANGE,
      "@types/node": TYPES_NODE_VERSION,
      typescript: TYPESCRIPT_VERSION,
      vitest: VITEST_VERSION,
    },
  };
  // A local core must also be the one the kit uses (the kit depends on core): pin it everywhere.
  const withOverrides = input.coreSource ? { ...pkg, overrides: { "@context-engine/core": "$@context-engine/core" } } : pkg;
  return {
    "package.json": `${JSON.stringify(withOverrides, null, 2)}\n`,
    "plugin.yaml": `name: ${name}\ndescription: ${JSON.stringify(description)}\nversion: 0.1.0\nentry: dist/index.js\n`,
    "tsconfig.json": `${JSON.stringify(
      {
        compilerOptions: {
          target: "ES2023",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          declaration: true,
          skipLibCheck: false,
          outDir: "dist",
          rootDir: ".",
          types: ["node"],
          noEmit: true,
        },
        include: ["src", "test"],
      },
      null,
      2,
    )}\n`,
    "tsconfig.build.json": `${JSON.stringify({ extends: "./tsconfig.json", compilerOptions: { noEmit: false, rootDir: "src" }, include: ["src"] }, null, 2)}\n`,
    ".gitignore": "node_modules/\ndist/\n",
    "src/index.ts": engineSource(name, cls),
    "test/contract.test.ts": contractTest(name, cls),
    "README.md": readme(name, description),
  };
}

function engineSource(name: string, cls: string): string {
  return `import { ContextEngine, type CompressOptions, type EngineInitContext, type Message, type Usage } from "@context-engine/core";

/**
 * The ${name} context engine.
 *
 * The host builds one instance per session with an EngineInitContext
 * (contextLength, chatModel for summaries, dataDir for files, config from
 * config.yaml \`engines.${name}\`), assigns \`modelThresholds\`, then calls
 * \`updateModel\`, which sets \`contextLength\` and \`thresholdTokens\`.
 * Each turn it reports usage with \`updateFromResponse\`, asks
 * \`shouldCompress\`, and calls \`compress\` when that says yes.
 */
export default class ${cls} extends ContextEngine {
  constructor(ctx: EngineInitContext = {}) {
    super();
    this.contextLength = ctx.contextLength ?? 0;
  }

  /** Must equal the \`context.engine\` value that selects this engine (and plugin.yaml \`name\`). */
  get name(): string {
    return ${JSON.stringify(name)};
  }

  /** The last response's figures (not running sums); recordUsage copies them. */
  updateFromResponse(usage: Usage): void {
    this.recordUsage(usage);
  }

  /** True at or above the threshold; false while no threshold is known (before updateModel) and on the -1 sentinel. */
  shouldCompress(promptTokens?: number): boolean {
    const tokens = promptTokens ?? this.lastPromptTokens;
    return this.thresholdTokens > 0 && tokens >= this.thresholdTokens;
  }

  /**
   * Return a shorter, valid OpenAI-format list: keep the system prompt first,
   * keep the latest user request verbatim, keep every tool result right after
   * the assistant message that called it, and raise \`compressionCount\` by
   * one per compaction. Honour \`options.signal\` and \`options.force\`.
   * Return the input itself when there is nothing to do.
   */
  compress(messages: Message[], _options: CompressOptions = {}): Message[] | Promise<Message[]> {
    // TODO: compact the conversation (the contract test marks this as TODO).
    return messages;
  }
}
`;
}

function contractTest(name: string, cls: string): string {
  return `import { describeContextEngineContract } from "@context-engine/contract-tests";
import ${cls} from "../src/index.js";

describeContextEngineContract({
  name: ${JSON.stringify(name)},
  createEngine: (ctx) => new ${cls}(ctx),
  // TODO: remove once compress compacts; until then this check is an expected failure.
  todo: ["compress > shrinks a conversation well over its threshold"],
});
`;
}

function readme(name: string, description: string): string {
  return `# ${name}

${description}

A context engine for [context-engine](https://www.npmjs.com/package/@context-engine/core).

- \`npm test\` runs the ContextEngine contract kit against the engine.
- \`npm run build\` compiles \`src/\` to \`dist/\`.
- Install it beside a host (\`npm install ${name}\`) and select it in config.yaml:

\`\`\`yaml
context:
  engine: ${name}
\`\`\`
`;
}
