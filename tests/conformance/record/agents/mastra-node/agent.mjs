// A Mastra agent with two tools on an AI SDK OpenAI model (the scripted server), traced by
// Mastra's observability with the OTel exporter (custom provider, OTLP/HTTP protobuf).
// The conversation is Mastra's memory thread id.
import { Agent } from "@mastra/core/agent";
import { Mastra } from "@mastra/core/mastra";
import { createTool } from "@mastra/core/tools";
import { Observability } from "@mastra/observability";
import { OtelExporter } from "@mastra/otel-exporter";
import { createOpenAI } from "@ai-sdk/openai";
import { z } from "zod";

const openai = createOpenAI({ baseURL: process.env.MODEL_BASE_URL, apiKey: "sk-local" });

const getWeather = createTool({
  id: "get_weather",
  description: "Current weather in a city.",
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => "Sunny, 21 C in " + city,
});
const lookupOrder = createTool({
  id: "lookup_order",
  description: "Look an order up.",
  inputSchema: z.object({ order_id: z.string() }),
  execute: async ({ order_id }) => {
    throw new Error(`order ${order_id} not found`);
  },
});

const agent = new Agent({
  id: "conformance_agent",
  name: "conformance_agent",
  instructions: "Answer with the tools.",
  model: openai.chat("scripted"),
  tools: { get_weather: getWeather, lookup_order: lookupOrder },
});

const exporter = new OtelExporter({
  provider: { custom: { endpoint: `${process.env.OTEL_EXPORTER_OTLP_ENDPOINT}/v1/traces`, protocol: "http/protobuf" } },
});
const mastra = new Mastra({
  agents: { conformance_agent: agent },
  observability: new Observability({ configs: { otel: { serviceName: process.env.TSREC_VARIANT, exporters: [exporter] } } }),
});

const result = await mastra.getAgent("conformance_agent").generate("Weather in Paris twice, then order A1?", {
  maxSteps: 10,
  memory: { thread: "conv-42", resource: "u1" },
});
console.log(result.text);
await mastra.shutdown?.();
await exporter.shutdown?.();
