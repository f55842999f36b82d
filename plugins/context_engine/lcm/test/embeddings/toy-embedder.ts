import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A small deterministic embedder for tests: words (endings folded) and a handful of shared
 * "concepts" are hashed into `dims` dimensions, L2-normalised. Words of one concept land on the
 * same dimension, so "adopt" is near "puppy" while sharing no word with it: what the word index
 * cannot find and a real embedding model would.
 */
const CONCEPTS: Record<string, string> = {
  adopt: "pet", puppy: "pet", dog: "pet", kitten: "pet", pet: "pet",
  car: "vehicle", vehicle: "vehicle", truck: "vehicle", drive: "vehicle",
  paint: "art", painting: "art", canvas: "art", art: "art",
};

function fold(word: string): string {
  return word.replace(/(ing|ed|es|s)$/u, "") || word;
}

function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export function toyEmbed(text: string, dims = 32): number[] {
  const v = new Array<number>(dims).fill(0);
  for (const raw of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    const word = fold(raw);
    const concept = CONCEPTS[raw] ?? CONCEPTS[word];
    if (concept) v[hash(`concept:${concept}`) % dims]! += 3;
    else v[hash(word) % dims]! += 1;
  }
  const n = Math.sqrt(v.reduce((a, b) => a + b * b, 0)) || 1;
  return v.map((x) => x / n);
}

export interface ToyServer {
  /** The base URL to configure (`…/v1`). */
  baseUrl: string;
  /** Each request's inputs and model, in order. */
  requests: Array<{ model: string; input: string[]; auth: string | undefined }>;
  /** Answer the next `n` requests with this HTTP status (then normally again); Infinity: always. */
  failNext(n: number, status?: number): void;
  /** Hold every answer this long (timeouts). */
  delayMs: number;
  /** Answers written (successful or not). */
  answered: number;
  close(): Promise<void>;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

/** The toy embedder behind a real HTTP server on 127.0.0.1 speaking the OpenAI embeddings API. */
export async function startToyServer(dims = 32): Promise<ToyServer> {
  let failures = 0;
  let failStatus = 500;
  const state: ToyServer = {
    baseUrl: "",
    requests: [],
    delayMs: 0,
    answered: 0,
    failNext(n, status = 500) {
      failures = n;
      failStatus = status;
    },
    close: async () => {},
  };
  const server: Server = createServer(async (req, res) => {
    if (req.method !== "POST" || req.url !== "/v1/embeddings") {
      res.writeHead(404).end("not found");
      return;
    }
    const body = (await readJson(req)) as { model: string; input: string | string[]; dimensions?: number };
    const input = Array.isArray(body.input) ? body.input : [body.input];
    state.requests.push({ model: body.model, input, auth: req.headers.authorization });
    if (state.delayMs) await new Promise((r) => setTimeout(r, state.delayMs));
    state.answered++;
    if (failures > 0) {
      failures--;
      res.writeHead(failStatus, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "toy failure" } }));
      return;
    }
    const data = input.map((t, index) => ({ object: "embedding", index, embedding: toyEmbed(t, body.dimensions ?? dims) }));
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data, model: body.model, usage: { prompt_tokens: 0, total_tokens: 0 } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}
