// The Vercel AI SDK 7 agent: generateText with two tools and stopWhen, traced by the
// LegacyOpenTelemetry integration of @ai-sdk/otel (the ai.* spans of AI SDK 6), exported by
// @opentelemetry/sdk-node over OTLP/HTTP protobuf. The session id travels as runtime
// context, included in telemetry (includeRuntimeContext).
import { NodeSDK } from "@opentelemetry/sdk-node";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { LegacyOpenTelemetry } from "@ai-sdk/otel";
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, registerTelemetry, tool, stepCountIs } from "ai";
import { z } from "zod";

const sdk = new NodeSDK({ traceExporter: new OTLPTraceExporter() });
sdk.start();
registerTelemetry(new LegacyOpenTelemetry());

const openai = createOpenAI({ baseURL: process.env.MODEL_BASE_URL, apiKey: "sk-local" });

const tools = {
  get_weather: tool({
    description: "Current weather in a city.",
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => "Sunny, 21 C in " + city,
  }),
  lookup_order: tool({
    description: "Look an order up.",
    inputSchema: z.object({ order_id: z.string() }),
    execute: async ({ order_id }) => {
      throw new Error(`order ${order_id} not found`);
    },
  }),
};

const result = await generateText({
  model: openai("scripted"),
  tools,
  stopWhen: stepCountIs(10),
  prompt: "Weather in Paris twice, then order A1?",
  runtimeContext: { sessionId: "conv-42" },
  telemetry: { functionId: "conformance-agent", includeRuntimeContext: { sessionId: true } },
});
console.log(result.text);
await sdk.shutdown();
