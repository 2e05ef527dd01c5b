// The Vercel AI SDK (ai 6) agent, streamed: streamText with two tools and stopWhen, telemetry on.
// Spans come from the SDK's built-in OpenTelemetry tracer (experimental_telemetry), exported
// by @opentelemetry/sdk-node over OTLP/HTTP protobuf. The session id is telemetry metadata.
import { NodeSDK } from "@opentelemetry/sdk-node";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { createOpenAI } from "@ai-sdk/openai";
import { streamText, tool, stepCountIs } from "ai";
import { z } from "zod";

const sdk = new NodeSDK({ traceExporter: new OTLPTraceExporter() });
sdk.start();

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

const result = streamText({
  model: openai("scripted"),
  tools,
  stopWhen: stepCountIs(10),
  prompt: "Weather in Paris twice, then order A1?",
  experimental_telemetry: { isEnabled: true, functionId: "conformance-agent", metadata: { sessionId: "conv-42" } },
});
console.log(await result.text);
await result.totalUsage;
// The root ai.streamText span ends in the stream's flush, just after the promises above
// resolve; a long-running app exports it later, this script lets that tick pass first.
await new Promise((resolve) => setTimeout(resolve, 200));
await sdk.shutdown();
