// The Vercel AI SDK (ai 6) on a non-OpenAI provider: TSREC_PROVIDER = anthropic
// (@ai-sdk/anthropic, Messages API) or google (@ai-sdk/google, Gemini API); TSREC_STREAM=1
// uses streamText. Two tools, stopWhen, the SDK's own telemetry (experimental_telemetry)
// exported by @opentelemetry/sdk-node; the session id is telemetry metadata.
import { NodeSDK } from "@opentelemetry/sdk-node";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { generateText, streamText, tool, stepCountIs } from "ai";
import { z } from "zod";

const sdk = new NodeSDK({ traceExporter: new OTLPTraceExporter() });
sdk.start();

const root = process.env.MODEL_ROOT_URL;
const model =
  process.env.TSREC_PROVIDER === "google"
    ? createGoogleGenerativeAI({ baseURL: `${root}/v1beta`, apiKey: "local" })("gemini-scripted")
    : createAnthropic({ baseURL: `${root}/v1`, apiKey: "sk-ant-local" })("claude-scripted");

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

const options = {
  model,
  tools,
  stopWhen: stepCountIs(10),
  prompt: "Weather in Paris twice, then order A1?",
  experimental_telemetry: { isEnabled: true, functionId: "conformance-agent", metadata: { sessionId: "conv-42" } },
};
let text;
if (process.env.TSREC_STREAM === "1") {
  const result = streamText(options);
  for await (const _ of result.textStream) {
    // drain the stream
  }
  text = await result.text;
} else {
  text = (await generateText(options)).text;
}
console.log(text);
await sdk.shutdown();
